import type { HookConfig, PermissionPolicy, RuntimeHookEvent } from "../protocol/index.js";
import { compileMatcher, matcherTakes } from "./hookConfig.js";
import { PermissionRule } from "./rules.js";

const RUN_EVENTS: readonly RuntimeHookEvent[] = [
  "PreToolUse",
  "PermissionRequest",
  "PostToolUse",
  "PostToolUseFailure",
];

/**
 * Rules and hook matchers that can match none of the `offered` tools, one sentence each: a
 * guard that names no tool here (a typo, another agent's tool name, a tool not configured)
 * looks enforced and is not. The CLI prints these on stderr; an embedder calls this with its
 * router's tool names (`router.specs()`) once its MCP servers have listed theirs.
 */
export function policyToolWarnings(
  policy: Pick<PermissionPolicy, "allow" | "ask" | "deny"> | undefined,
  hooks: HookConfig | undefined,
  offered: readonly string[],
): string[] {
  const warnings: string[] = [];
  const list = offered.length > 0 ? offered.join(", ") : "none";
  for (const key of ["deny", "ask", "allow"] as const) {
    for (const rule of policy?.[key] ?? []) {
      let parsed: PermissionRule;
      try {
        parsed = new PermissionRule(rule);
      } catch {
        continue; // the engine reports a malformed rule as an error
      }
      if (!offered.some((tool) => parsed.matchesTool(tool))) {
        warnings.push(`permissions.${key}: rule "${rule}" matches no tool offered here (offered: ${list})`);
      }
    }
  }
  for (const event of RUN_EVENTS) {
    for (const [i, m] of (hooks?.[event] ?? []).entries()) {
      let pattern: RegExp | undefined;
      try {
        pattern = compileMatcher(m.matcher);
      } catch {
        continue; // validation reports a bad expression as an error
      }
      if (!offered.some((tool) => matcherTakes(pattern, tool))) {
        warnings.push(
          `hooks.${event}[${i}]: matcher ${JSON.stringify(m.matcher)} matches no tool offered here (offered: ${list})`,
        );
      }
    }
  }
  return warnings;
}
