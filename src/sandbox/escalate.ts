import { SandboxDenial, texts, type EscalationRequest, type ExecEnvironment, type FileOps } from "../protocol/index.js";
import type { CapturedBytes } from "../turn/index.js";
import { localFileOps } from "./helper/ops.js";

/** Output of a command the sandbox stopped (DESIGN section 12; Codex's denial keywords). */
const DENIAL =
  /Read-only file system|Permission denied|Operation not permitted|Network is unreachable|Could not resolve host|Temporary failure in name resolution/;

/** Does a failed command's output read like the sandbox stopped it? */
export function escalationSignature(output: string): boolean {
  return DENIAL.test(output);
}

/**
 * Did the sandbox stop this run? It ran sandboxed under a sandboxing mode, ended by itself with
 * a failure (`exitCode` undefined: still running, timed out or aborted), and its output reads
 * like a denial: then it may be offered for escalation.
 */
export function sandboxStopped(
  env: ExecEnvironment,
  run: { sandboxed: boolean; exitCode: number | undefined },
  output: CapturedBytes,
): boolean {
  return (
    run.sandboxed &&
    env.canEscalate !== false &&
    env.sandbox.mode !== "danger-full-access" &&
    run.exitCode !== undefined &&
    run.exitCode !== 0 &&
    escalationSignature(Buffer.concat([output.head, output.tail]).toString("utf8"))
  );
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
