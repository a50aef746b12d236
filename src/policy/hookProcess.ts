import type { ExecEnvironment } from "../protocol/index.js";
import { runCommand, type RunResult } from "../sandbox/index.js";
import { errorMessage } from "../util/index.js";

/** Most a hook may print on each of stdout and stderr; past it the hook is killed and its output ignored. */
const HOOK_OUTPUT_LIMIT = 1024 * 1024;

export interface HookProcessOptions {
  /** Run by `/bin/sh -c`, as Claude Code and Codex do. */
  command: string;
  cwd: string;
  /** Written to stdin, which is then closed. */
  input: string;
  timeoutMs: number;
  signal: AbortSignal;
}

/** How a hook process ended. */
export type HookProcessResult =
  | { kind: "exited"; code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }
  | { kind: "timed_out" }
  | { kind: "aborted" }
  | { kind: "overflow"; stream: "stdout" | "stderr" }
  | { kind: "failed"; message: string };

/** stdout or stderr, kept until it passes the limit. */
class Capture {
  private readonly chunks: Buffer[] = [];
  private bytes = 0;

  /** False once the stream went past the limit (the chunk is dropped). */
  add(chunk: Buffer): boolean {
    this.bytes += chunk.length;
    if (this.bytes > HOOK_OUTPUT_LIMIT) return false;
    this.chunks.push(chunk);
    return true;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}

/**
 * Runs one hook command through the turn's environment (its environment policy applies; the
 * sandbox does not: a hook is the user's own script, not the model's). A timeout terminates it
 * (SIGTERM, then SIGKILL after the grace), as do an abort and too much output. When the promise
 * settles nothing it started is alive. Never rejects.
 */
export async function runHookProcess(env: ExecEnvironment, opts: HookProcessOptions): Promise<HookProcessResult> {
  if (opts.signal.aborted) return { kind: "aborted" };
  const out = new Capture();
  const err = new Capture();
  const overflow = new AbortController();
  let overflowed: "stdout" | "stderr" | undefined;
  let result: RunResult;
  try {
    result = await runCommand(
      env,
      // CLAUDE_PROJECT_DIR: hooks written for Claude Code name their scripts from it.
      { argv: ["/bin/sh", "-c", opts.command], cwd: opts.cwd, env: { CLAUDE_PROJECT_DIR: opts.cwd }, sandboxed: false },
      {
        timeoutMs: opts.timeoutMs,
        signal: AbortSignal.any([opts.signal, overflow.signal]),
        input: opts.input,
        onOutput: (stream, chunk) => {
          if (!(stream === "stdout" ? out : err).add(chunk) && overflowed === undefined) {
            overflowed = stream;
            overflow.abort();
          }
        },
      },
    );
  } catch (e) {
    return { kind: "failed", message: errorMessage(e) };
  }
  // An abort overrides every other ending; otherwise the first one stands.
  if (opts.signal.aborted) return { kind: "aborted" };
  if (overflowed !== undefined) return { kind: "overflow", stream: overflowed };
  if (result.timedOut) return { kind: "timed_out" };
  return {
    kind: "exited",
    code: result.signal === null ? result.exitCode : null,
    signal: result.signal,
    stdout: out.text(),
    stderr: err.text(),
  };
}
