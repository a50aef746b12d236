import { texts, type PolicyCall, type PermissionDecider } from "../protocol/index.js";
import type { CallLanding } from "../registry/index.js";

/**
 * A call's paths are judged where they really land when it is decided, but the file tools open
 * them later: a link flipped in between (by a command the model left running) would lead the
 * open elsewhere. So the call carries its judgement: the real paths judged, and the rules asked
 * again for any other place it is found to land. A place the rules deny answers with the rule;
 * one they would only allow after asking a person (who was asked about another place, if at
 * all) is refused as changed.
 */
export function landingOf(
  engine: PermissionDecider,
  call: PolicyCall & { realPaths: NonNullable<PolicyCall["realPaths"]> },
): CallLanding {
  const judged = call.realPaths;
  return {
    paths: judged.paths,
    judge(real: string, asked?: string): string | undefined {
      if (judged.paths.includes(real)) return undefined;
      const again = engine.decide({ ...call, realPaths: { cwd: judged.cwd, paths: [real] } });
      if (again.decision === "allow") return undefined;
      if (again.decision === "deny") return again.reason;
      return texts.landingChanged(asked ?? call.subject?.paths?.[0] ?? real, real);
    },
  };
}
