import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import { constants } from "node:os";
import { setTimeout as delay } from "node:timers/promises";

/** Exit code reported for a command killed by its timeout (as Codex and coreutils `timeout`). */
export const TIMEOUT_EXIT_CODE = 124;
/** Time a process group gets between SIGTERM and SIGKILL. */
export const DEFAULT_KILL_GRACE_MS = 500;
const POLL_MS = 10;
/** How long to wait for pipes held open by a process that left our group (e.g. `setsid`). */
const PIPE_DRAIN_MS = 100;
/** Longest delay `setTimeout` honours; a larger one fires at once (Node clamps it to 1 ms). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Process groups of commands still running. Each group is detached from the host, so neither
 * the host's exit nor a Ctrl-C at its terminal reaches it. While a group is live: an `exit`
 * listener SIGKILLs them all (`process.exit`); a SIGINT/SIGTERM/SIGHUP to the host is passed on
 * to them, as the terminal would have done; and when nobody else handles that signal (its
 * default action would end the host) they get SIGKILL and the signal is re-raised.
 */
const liveGroups = new Set<number>();
const HOST_ENDING_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

const killLiveGroups = (): void => {
  for (const pgid of liveGroups) signalProcessGroup(pgid, "SIGKILL");
};

function onHostSignal(signal: NodeJS.Signals): void {
  for (const pgid of liveGroups) signalProcessGroup(pgid, signal);
  // An embedder's own handler decides the rest; if it exits, the `exit` listener kills.
  if (process.listenerCount(signal) > 1) return;
  killLiveGroups();
  liveGroups.clear();
  setHostHooks(false);
  process.kill(process.pid, signal);
}

function setHostHooks(on: boolean): void {
  const method = on ? "on" : "off";
  process[method]("exit", killLiveGroups);
  for (const signal of HOST_ENDING_SIGNALS) process[method](signal, onHostSignal);
}

function trackGroup(pgid: number): void {
  if (liveGroups.size === 0) setHostHooks(true);
  liveGroups.add(pgid);
}

function untrackGroup(pgid: number): void {
  if (liveGroups.delete(pgid) && liveGroups.size === 0) setHostHooks(false);
}

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
    throw new ExecStartError(code === "ENOENT" ? `workdir does not exist: ${dir}` : `workdir is not accessible: ${dir} (${code ?? "error"})`);
  }
  return dir;
}

/** Is the process running? A zombie counts as gone: it has exited, only its reaping is pending. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
  return procState(pid) !== "Z";
}

/** The state letter of `/proc/{pid}/stat`, or undefined where there is no /proc. */
function procState(pid: number): string | undefined {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, "utf8"))?.state;
  } catch {
    return undefined;
  }
}

function parseStat(text: string): { state: string; pgrp: number } | undefined {
  // `pid (comm) state ppid pgrp ...`; comm may hold spaces and parentheses.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const state = fields[0];
  const pgrp = Number(fields[2]);
  return state === undefined || !Number.isInteger(pgrp) ? undefined : { state, pgrp };
}

/**
 * Is any process of the group still running? Zombies do not count: where PID 1 does not reap
 * orphans (some containers), killed grandchildren stay zombies forever.
 */
export function processGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return true; // no /proc: trust kill(0)
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const st = parseStat(readFileSync(`/proc/${entry}/stat`, "utf8"));
      if (st && st.pgrp === pgid && st.state !== "Z") return true;
    } catch {
      // the process exited while we looked
    }
  }
  return false;
}

/** Sends `signal` to the whole group; false when no process of it is left. */
export function signalProcessGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

async function waitGroupGone(pgid: number, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (!processGroupAlive(pgid)) return true;
    if (performance.now() >= deadline) return false;
    await delay(POLL_MS);
  }
}

/**
 * SIGTERM to the group, SIGKILL after `graceMs` if anything is left; resolves when the group
 * is gone (or SIGKILL did not clear it within a second, which only a stuck process survives).
 */
export async function terminateProcessGroup(pgid: number, graceMs = DEFAULT_KILL_GRACE_MS): Promise<void> {
  if (!signalProcessGroup(pgid, "SIGTERM")) return;
  if (await waitGroupGone(pgid, graceMs)) return;
  signalProcessGroup(pgid, "SIGKILL");
  await waitGroupGone(pgid, 1_000);
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
      return new ExecStartError(`failed to start ${program}: ${e.message}`);
  }
}

function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  return 128 + (signal ? constants.signals[signal] : 0);
}

/** Waits for `promise` at most `ms`, without leaving a timer behind. */
async function waitAtMost(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/**
 * Runs a command in its own process group with stdin closed (a command reading input gets
 * EOF). On timeout or abort the group gets SIGTERM, then SIGKILL after the grace. When the
 * promise settles no process of the group is alive, background grandchildren included (only a
 * process that moved to another session escapes). Throws `ExecStartError` when the command
 * cannot start.
 */
export async function execCommand(opts: ExecOptions): Promise<ExecResult> {
  const start = performance.now();
  const program = opts.argv[0];
  if (program === undefined || program === "") throw new ExecStartError("command must not be empty");
  if (opts.signal?.aborted) {
    return { pid: undefined, exitCode: -1, signal: null, timedOut: false, aborted: true, durationMs: 0 };
  }
  let child: ChildProcess;
  try {
    child = spawn(program, opts.argv.slice(1), {
      cwd: opts.cwd,
      env: opts.env ? { ...process.env, ...opts.env } : process.env,
      detached: true, // setsid(): the child leads a new process group we can kill as a whole
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (err) {
    throw startError(program, err);
  }
  // Errors after start-up (none expected: we signal the group ourselves) must never crash the host.
  child.on("error", () => undefined);
  const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
    child.once("error", reject);
  });
  // A spawn failure rejects `exited` too; it is reported through the `spawn` wait below.
  exited.catch(() => undefined);
  await new Promise<void>((resolve, reject) => {
    child.once("spawn", resolve);
    child.once("error", (err) => reject(startError(program, err)));
  });
  const pgid = child.pid as number;
  trackGroup(pgid);
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
  }, Math.min(opts.timeoutMs, MAX_TIMER_MS));
  const onAbort = (): void => {
    aborted = true;
    kill();
  };
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  // An abort while we waited for the `spawn` event fired no listener: act on it now.
  if (opts.signal?.aborted) onAbort();
  try {
    const { code, signal } = await exited.catch(() => ({ code: null, signal: null }));
    const durationMs = performance.now() - start;
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onAbort);
    if (killing) {
      await killing;
    } else if (signalProcessGroup(pgid, "SIGKILL")) {
      // The command ended but left background processes behind: they die with the call.
      await waitGroupGone(pgid, 1_000);
    }
    await waitAtMost(closed, PIPE_DRAIN_MS);
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
    untrackGroup(pgid);
    child.stdout?.destroy();
    child.stderr?.destroy();
  }
}
