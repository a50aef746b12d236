import { constants } from "node:os";
import { DEFAULT_KILL_GRACE_MS } from "../process/index.js";
import type { ExecEnvironment, SpawnRequest } from "../protocol/index.js";
import { now, timerDelay } from "../util/index.js";

/** Exit code reported for a command killed by its timeout (as Codex and coreutils `timeout`). */
const TIMEOUT_EXIT_CODE = 124;

export interface RunOptions {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** SIGTERM -> SIGKILL grace on timeout and abort. */
  killGraceMs?: number | undefined;
  /** Written to stdin, which is then closed; without it stdin is closed from the start. */
  input?: string;
  onOutput?: (stream: "stdout" | "stderr", chunk: Buffer) => void;
}

export interface RunResult {
  pid: number | undefined;
  /** The exit code; 124 on timeout; 128 + signal number when a signal ended it; -1 when never started. */
  exitCode: number;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
}

function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  return 128 + (signal ? constants.signals[signal] : 0);
}

/**
 * Runs one command to its end in `env`. On timeout or abort it gets SIGTERM, then SIGKILL
 * after the grace. When the promise settles nothing the command started is alive, background
 * children included. Rejects (with the environment's FunctionCallError) only when the command
 * cannot start.
 */
export async function runCommand(env: ExecEnvironment, req: SpawnRequest, opts: RunOptions): Promise<RunResult> {
  const start = now();
  if (opts.signal?.aborted) {
    return { pid: undefined, exitCode: -1, signal: null, timedOut: false, aborted: true, durationMs: 0 };
  }
  const proc = await env.spawn(opts.input === undefined ? req : { ...req, stdin: "pipe" });
  proc.stdout.on("data", (chunk: Buffer) => opts.onOutput?.("stdout", chunk));
  proc.stderr.on("data", (chunk: Buffer) => opts.onOutput?.("stderr", chunk));
  if (proc.stdin) {
    // A command that exits without reading its input closes the pipe under us (EPIPE): harmless.
    proc.stdin.on("error", () => undefined);
    proc.stdin.end(opts.input);
  }

  let timedOut = false;
  let aborted = false;
  let killing: Promise<void> | undefined;
  const kill = (): void => {
    killing ??= proc.terminate(opts.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, timerDelay(opts.timeoutMs));
  const onAbort = (): void => {
    aborted = true;
    kill();
  };
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  // An abort while the command was starting fired no listener: act on it now.
  if (opts.signal?.aborted) onAbort();
  try {
    const { code, signal } = await proc.exited;
    const durationMs = now() - start;
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onAbort);
    if (killing) await killing;
    return {
      pid: proc.pid,
      exitCode: timedOut ? TIMEOUT_EXIT_CODE : exitCodeOf(code, signal),
      signal,
      timedOut,
      aborted,
      durationMs,
    };
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onAbort);
    await proc.dispose();
  }
}
