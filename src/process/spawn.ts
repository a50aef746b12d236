import { spawn, type ChildProcess, type StdioOptions } from "node:child_process";
import { trackProcessGroup } from "./hostExit.js";

/** A started child leading its own process group, tracked so it dies with the host. */
export interface GroupChild {
  child: ChildProcess;
  pgid: number;
  /** The child's `close`: it exited and its pipes drained. */
  closed: Promise<void>;
  /** The child's exit; never rejects (a failure after start-up reads as a null exit). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Stops tracking the group: call once it is gone. */
  untrack: () => void;
}

/**
 * Spawns `program` as the leader of a new process group (setsid), so the whole group can be
 * signalled and nothing it starts outlives it; resolves once it has started, rejects with the
 * spawn error (ENOENT, EACCES, ...) when it cannot. A Ctrl-C at the host's terminal is passed
 * on to the group, as the terminal would to its foreground job.
 */
export async function spawnGroup(
  program: string,
  args: readonly string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; stdio: StdioOptions },
): Promise<GroupChild> {
  const child = spawn(program, args, { cwd: opts.cwd, env: opts.env, detached: true, stdio: opts.stdio });
  // Errors after start-up (none expected: we signal the group ourselves) must never crash the host.
  child.on("error", () => undefined);
  const closed = new Promise<void>((resolve) => {
    child.once("close", () => {
      resolve();
    });
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => {
      resolve({ code, signal });
    });
    child.once("error", () => {
      resolve({ code: null, signal: null });
    });
  });
  await new Promise<void>((resolve, reject) => {
    child.once("spawn", resolve);
    child.once("error", reject);
  });
  const pgid = child.pid as number;
  return { child, pgid, closed, exited, untrack: trackProcessGroup(pgid, { forwardHostSignals: true }) };
}
