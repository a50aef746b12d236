import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as delay } from "node:timers/promises";
import { now } from "../util/index.js";

/** Time a process group gets between SIGTERM and SIGKILL. */
export const DEFAULT_KILL_GRACE_MS = 500;
/** How long SIGKILL may take to clear a group; only a process stuck in the kernel outlasts it. */
const SIGKILL_WAIT_MS = 1_000;
const POLL_MS = 10;

/** Is the process running? A zombie counts as gone: it has exited, only its reaping is pending. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
  return procStat(pid)?.state !== "Z";
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
  return entries.some((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    const st = procStat(Number(entry));
    return st !== undefined && st.pgrp === pgid && st.state !== "Z";
  });
}

/** State letter, parent, group and session from `/proc/{pid}/stat`; undefined without /proc or once the process is gone. */
function procStat(
  pid: number,
): { comm: string; state: string; ppid: number; pgrp: number; session: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // `pid (comm) state ppid pgrp ...`; comm may hold spaces and parentheses.
  const close = text.lastIndexOf(")");
  const comm = text.slice(text.indexOf("(") + 1, close);
  const fields = text.slice(close + 2).split(" ");
  const state = fields[0];
  const [ppid, pgrp, session] = [Number(fields[1]), Number(fields[2]), Number(fields[3])];
  return state === undefined || !Number.isInteger(pgrp) ? undefined : { comm, state, ppid, pgrp, session };
}

/** Every live process's stat, from /proc (empty without it). */
function allStats(): Array<{ pid: number; comm: string; ppid: number; session: number }> {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    const st = procStat(Number(entry));
    return st && st.state !== "Z" ? [{ pid: Number(entry), ...st }] : [];
  });
}

/**
 * The sessions `pid`'s children lead: a PTY wrapper (`script`) runs its command as the leader of
 * a new session, out of reach of a signal to the wrapper's group. Read it before the wrapper dies
 * (its children are then re-parented).
 */
export function childSessions(pid: number): number[] {
  return allStats()
    .filter((st) => st.ppid === pid && st.session === st.pid)
    .map((st) => st.session);
}

/**
 * Ctrl-C without a terminal: SIGINT to the command's process group, as a terminal's line
 * discipline sends it. Under bubblewrap (`wrapped`), to every process it runs instead: bubblewrap
 * itself would die of SIGINT and SIGKILL the command before a trap of the command could answer.
 */
export function interruptGroup(pgid: number, wrapped: boolean): boolean {
  if (!wrapped) return signalProcessGroup(pgid, "SIGINT");
  const stats = allStats();
  const inside = new Set([pgid]);
  let signalled = false;
  // Parents come before children in /proc only mostly: walk until no new descendant turns up.
  for (let grew = true; grew;) {
    grew = false;
    for (const st of stats) {
      if (inside.has(st.pid) || !inside.has(st.ppid)) continue;
      inside.add(st.pid);
      grew = true;
      if (st.comm === "bwrap") continue;
      try {
        process.kill(st.pid, "SIGINT");
        signalled = true;
      } catch {
        // gone meanwhile
      }
    }
  }
  return signalled;
}

/** Sends `signal` to every process of the sessions. */
export function signalSessions(sessions: readonly number[], signal: NodeJS.Signals): void {
  if (sessions.length === 0) return;
  for (const st of allStats()) {
    if (!sessions.includes(st.session)) continue;
    try {
      process.kill(st.pid, signal);
    } catch {
      // gone meanwhile
    }
  }
}

/** Sends `signal` to the whole group; false when no process of it is left. */
export function signalProcessGroup(pgid: number, signal: NodeJS.Signals): boolean {
  // The usual answer after a command ends is ESRCH (nothing left to kill), thrown as an error
  // whose stack nobody reads: not capturing it halves the call's cost.
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** True once no process of the group runs; false if some still does after `timeoutMs`. */
async function waitGroupGone(pgid: number, timeoutMs: number): Promise<boolean> {
  const deadline = now() + timeoutMs;
  for (;;) {
    if (!processGroupAlive(pgid)) return true;
    if (now() >= deadline) return false;
    await delay(POLL_MS);
  }
}

const GONE = Promise.resolve();

/**
 * SIGKILL to the group; resolves when it is gone (or SIGKILL did not clear it within a second).
 * Not an async function: after a command ends there is usually nothing left, and then the
 * answer is a promise already settled.
 */
export function killProcessGroup(pgid: number): Promise<void> {
  if (!signalProcessGroup(pgid, "SIGKILL")) return GONE;
  return waitGroupGone(pgid, SIGKILL_WAIT_MS).then(() => undefined);
}

/**
 * SIGTERM to the group, SIGKILL after `graceMs` if anything is left; resolves when the group
 * is gone (or SIGKILL did not clear it within a second, which only a stuck process survives).
 */
export async function terminateProcessGroup(pgid: number, graceMs = DEFAULT_KILL_GRACE_MS): Promise<void> {
  if (!signalProcessGroup(pgid, "SIGTERM")) return;
  if (await waitGroupGone(pgid, graceMs)) return;
  await killProcessGroup(pgid);
}
