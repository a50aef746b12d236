import { stat } from "node:fs/promises";
import path from "node:path";
import { constants } from "node:os";
import {
  childClosed,
  DEFAULT_KILL_GRACE_MS,
  killProcessGroup,
  spawnGroup,
  terminateProcessGroup,
  type GroupChild,
} from "../../process/index.js";
import { errorMessage, now, timerDelay } from "../../util/index.js";

/** Exit code reported for a command killed by its timeout (as Codex and coreutils `timeout`). */
export const TIMEOUT_EXIT_CODE = 124;

/** A command could not be started; the message is meant for the model. */
export class ExecStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ExecStartError";
  }
}

/** `workdir` against `cwd`; it must be an existing directory. */
export async function resolveWorkdir(cwd: string, workdir?: string): Promise<string> {
  const dir = path.resolve(cwd, workdir ?? ".");
  try {
    if (!(await stat(dir)).isDirectory()) throw new ExecStartError(`workdir is not a directory: ${dir}`);
  } catch (err) {
    if (err instanceof ExecStartError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new ExecStartError(
      code === "ENOENT" ? `workdir does not exist: ${dir}` : `workdir is not accessible: ${dir} (${code ?? "error"})`,
    );
  }
  return dir;
}

export interface ExecOptions {
  /** Program and arguments, run directly (no shell). */
  argv: string[];
  cwd: string;
  /** Added to the parent's environment. */
  env?: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
  killGraceMs?: number;
  onOutput?: (stream: "stdout" | "stderr", chunk: Buffer) => void;
}

export interface ExecResult {
  pid: number | undefined;
  /** The exit code; 124 on timeout; 128 + signal number when a signal ended it. */
  exitCode: number;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
}

function startError(program: string, err: unknown): ExecStartError {
  const e = err as NodeJS.ErrnoException;
  switch (e.code) {
    case "ENOENT":
      return new ExecStartError(`command not found: ${program}`);
    case "EACCES":
      return new ExecStartError(`permission denied: ${program} is not executable`);
    default:
      return new ExecStartError(`failed to start ${program}: ${errorMessage(err)}`);
  }
}

function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  return 128 + (signal ? constants.signals[signal] : 0);
}

/**
 * Runs a command in its own process group with stdin closed (a command reading input gets
 * EOF). On timeout or abort the group gets SIGTERM, then SIGKILL after the grace. When the
 * promise settles no process of the group is alive, background grandchildren included (only a
 * process that moved to another session escapes). Throws `ExecStartError` when the command
 * cannot start.
 */
export async function execCommand(opts: ExecOptions): Promise<ExecResult> {
  const start = now();
  const program = opts.argv[0];
  if (program === undefined || program === "") throw new ExecStartError("command must not be empty");
  if (opts.signal?.aborted) {
    return { pid: undefined, exitCode: -1, signal: null, timedOut: false, aborted: true, durationMs: 0 };
  }
  let started: GroupChild;
  try {
    started = await spawnGroup(program, opts.argv.slice(1), {
      cwd: opts.cwd,
      env: opts.env ? { ...process.env, ...opts.env } : process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (err) {
    throw startError(program, err);
  }
  const { child, pgid, closed, exited, untrack } = started;
  child.stdout?.on("data", (chunk: Buffer) => opts.onOutput?.("stdout", chunk));
  child.stderr?.on("data", (chunk: Buffer) => opts.onOutput?.("stderr", chunk));

  let timedOut = false;
  let aborted = false;
  let killing: Promise<void> | undefined;
  const kill = (): void => {
    killing ??= terminateProcessGroup(pgid, opts.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
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
  // An abort while we waited for the `spawn` event fired no listener: act on it now.
  if (opts.signal?.aborted) onAbort();
  try {
    const { code, signal } = await exited;
    const durationMs = now() - start;
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onAbort);
    // A command that ended by itself may have left background processes: they die with the call.
    await (killing ?? killProcessGroup(pgid));
    await childClosed(closed);
    return {
      pid: pgid,
      exitCode: timedOut ? TIMEOUT_EXIT_CODE : exitCodeOf(code, signal),
      signal,
      timedOut,
      aborted,
      durationMs,
    };
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onAbort);
    untrack();
    child.stdout?.destroy();
    child.stderr?.destroy();
  }
}
