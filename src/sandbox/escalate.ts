import { SandboxDenial, texts, type EscalationRequest, type ExecEnvironment, type FileOps } from "../protocol/index.js";
import type { CapturedBytes } from "../turn/index.js";
import { domainPatternProblem } from "./domains.js";
import { localFileOps } from "./helper/ops.js";

/** Output of a command the sandbox stopped (DESIGN section 12; Codex's denial keywords and the allowlist's refusal). */
const DENIAL =
  /Read-only file system|Permission denied|Operation not permitted|Network is unreachable|Could not resolve host|Temporary failure in name resolution|is not allowed by the sandbox/;
/** The network allowlist's refusal (texts.networkDenied), naming the host. */
const NETWORK_DENIAL = /network access to (\S+) is not allowed by the sandbox/g;

/** Does a failed command's output read like the sandbox stopped it? */
function escalationSignature(output: string): boolean {
  return DENIAL.test(output);
}

/** What a person is asked when the sandbox stopped a command, and what their allow grants. */
export interface SandboxEscalation {
  /** The approval's reason. */
  reason: string;
  /**
   * Grants the allow; true when the command should run again sandboxed (the refused domains
   * now allowed for the session), false when it should run again without the sandbox.
   */
  grant(): boolean;
}

/**
 * Did the sandbox stop this run? It ran sandboxed under a sandboxing mode, ended by itself with
 * a failure (`exitCode` undefined: still running, timed out or aborted), and its output reads
 * like a denial: then it may be offered for escalation. When the network allowlist refused
 * domains an allowlist can hold, the offer is those domains for the session (the command runs
 * again in the sandbox); otherwise it is a run without the sandbox.
 */
export function sandboxStopped(
  env: ExecEnvironment,
  run: { sandboxed: boolean; exitCode: number | undefined },
  output: CapturedBytes,
): SandboxEscalation | undefined {
  if (
    !run.sandboxed ||
    env.canEscalate === false ||
    env.sandbox.mode === "danger-full-access" ||
    run.exitCode === undefined ||
    run.exitCode === 0
  )
    return undefined;
  const text = Buffer.concat([output.head, output.tail]).toString("utf8");
  if (!escalationSignature(text)) return undefined;
  const hosts = [...new Set([...text.matchAll(NETWORK_DENIAL)].map((m) => m[1] ?? ""))].filter(
    (host) => domainPatternProblem(host) === undefined,
  );
  if (hosts.length > 0 && env.sandbox.allowedDomains !== undefined && env.allowDomains) {
    const allowDomains = env.allowDomains.bind(env);
    return {
      reason: texts.escalateNetwork(hosts),
      grant: () => {
        allowDomains(hosts);
        return true;
      },
    };
  }
  return { reason: texts.escalateCommand, grant: () => false };
}

/**
 * `env.checkWrite(paths)`, and when the sandbox refuses a path, a request to write anyway
 * (`sandbox_escalation`); the denial stands unless a person allows it. Nothing is written
 * before this resolves. Resolves with the file operations the write goes through: the
 * environment's (inside the sandbox), or on a person's allow the host process's own, outside
 * it (as an allowed command runs unsandboxed).
 */
export async function checkWriteOrEscalate(
  env: ExecEnvironment,
  paths: readonly string[],
  opts: { cwd: string; escalate?: ((req: EscalationRequest) => Promise<boolean>) | undefined },
): Promise<FileOps> {
  try {
    await env.checkWrite(paths, { cwd: opts.cwd });
    return env.files ?? localFileOps;
  } catch (err) {
    if (!(err instanceof SandboxDenial) || !opts.escalate || env.canEscalate === false) throw err;
    if (!(await opts.escalate({ reason: texts.escalateWrite(err.path), summary: paths.join(", ") }))) throw err;
    return localFileOps;
  }
}
