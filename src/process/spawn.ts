import { spawn, type StdioOptions } from "node:child_process";
import { killProcessGroup } from "./groups.js";
import { trackProcessGroup } from "./hostExit.js";
import { childClosed } from "./reap.js";
import type { GroupProcess } from "./remoteChild.js";
import { spawnViaSpawner } from "./spawner.js";

/** A started child leading its own process group, tracked so it dies with the host. */
export interface GroupChild {
  child: GroupProcess;
  pgid: number;
  /** The child's `close`: it exited and its pipes drained. */
  closed: Promise<void>;
  /** Has `closed` happened? (Then releasing the group needs no drain timer.) */
  hasClosed: () => boolean;
  /** The child's exit; never rejects (a failure after start-up reads as a null exit). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Stops tracking the group: call once it is gone. */
  untrack: () => void;
}

/**
 * Ends a started group for good: kills what it left (background children), waits for its
 * pipes, stops tracking it and releases the pipes even when the kill fails.
 */
export async function releaseGroup(started: GroupChild): Promise<void> {
  const { child } = started;
  try {
    await killProcessGroup(started.pgid);
    if (!started.hasClosed()) await childClosed(started.closed);
  } finally {
    started.untrack();
    child.stdin?.destroy();
    child.stdout?.destroy();
    child.stderr?.destroy();
  }
}

/**
 * The stdio a spawner can set up (pipes and nothing), unless `TOOLCALL_SPAWNER=off` asks for
 * node's own spawn (debugging): a host descriptor (the standby's request file) is forked here.
 */
function spawnerStdio(stdio: StdioOptions): Array<"ignore" | "pipe"> | undefined {
  if (process.env["TOOLCALL_SPAWNER"] === "off" || !Array.isArray(stdio)) return undefined;
  const entries = stdio as unknown[];
  return entries.every((s) => s === "pipe" || s === "ignore") ? entries : undefined;
}

/** Starts it through the spawner where it can; resolves with a running child or rejects with the spawn error. */
async function startChild(
  program: string,
  args: readonly string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; stdio: StdioOptions },
): Promise<GroupProcess> {
  const stdio = spawnerStdio(opts.stdio);
  const remote = stdio && (await spawnViaSpawner(program, args, { cwd: opts.cwd, env: opts.env, stdio }));
  if (remote) return remote;
  const child = spawn(program, args, { cwd: opts.cwd, env: opts.env, detached: true, stdio: opts.stdio });
  // No pid: it did not start (the documented sign), and the reason comes as an `error` on the next tick.
  if (child.pid === undefined) throw await new Promise<Error>((resolve) => child.once("error", resolve));
  return child;
}

/**
 * Spawns `program` as the leader of a new process group (setsid), so the whole group can be
 * signalled and nothing it starts outlives it; resolves once it has started, rejects with the
 * spawn error (ENOENT, EACCES, ...) when it cannot. A Ctrl-C at the host's terminal is passed
 * on to the group, as the terminal would to its foreground job (unless `forwardHostSignals` is false).
 * The fork happens in the host's spawner (spawner.ts), off the host's event loop, unless a stdio
 * entry is a descriptor of the host's.
 */
export async function spawnGroup(
  program: string,
  args: readonly string[],
  opts: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    stdio: StdioOptions;
    /**
     * Default true. False for a program whose own end does not end its work (the `docker` CLI:
     * its command runs on inside the container), which the caller stops its own way.
     */
    forwardHostSignals?: boolean;
    /** True for a program the kernel ends with the host (bubblewrap's `--die-with-parent`): no watchdog entry. */
    diesWithHost?: boolean;
    /**
     * Default true. False for one the kernel ends with the host that runs no command yet (a
     * standby bubblewrap): an idle host keeps its own exit and signal handling; the caller
     * tracks it once it runs one.
     */
    track?: boolean;
  },
): Promise<GroupChild> {
  const child = await startChild(program, args, opts);
  // Errors after start-up (none expected: we signal the group ourselves) must never crash the host.
  child.on("error", () => undefined);
  let isClosed = false;
  const closed = new Promise<void>((resolve) => {
    child.once("close", () => {
      isClosed = true;
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
  const pgid = child.pid as number;
  // It runs: tracked at once, before any other code of the host runs (waiting for the `spawn`
  // event cost a tick and left the group untracked meanwhile).
  const untrack =
    opts.track === false
      ? () => undefined
      : trackProcessGroup(pgid, {
          forwardHostSignals: opts.forwardHostSignals ?? true,
          watchdog: opts.diesWithHost !== true,
        });
  return { child, pgid, closed, hasClosed: () => isClosed, exited, untrack };
}

/** What `runProgram` returns: the exit code (null when a signal or the timeout ended it) and both outputs. */
export interface ProgramResult {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/**
 * Runs a helper of the host's (the `docker` CLI) to its end in its own group and returns its
 * output; SIGKILL to the group after `timeoutMs`. Rejects only when it cannot start.
 */
export async function runProgram(
  program: string,
  args: readonly string[],
  opts: { env: NodeJS.ProcessEnv; timeoutMs: number; cwd?: string },
): Promise<ProgramResult> {
  const started = await spawnGroup(program, args, {
    cwd: opts.cwd ?? "/",
    env: opts.env,
    stdio: ["ignore", "pipe", "pipe"],
    // Bookkeeping (create, remove, kill inside a container) must finish even on a Ctrl-C.
    forwardHostSignals: false,
  });
  const { child, pgid, closed, exited, untrack } = started;
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (s: string) => (stdout += s));
  child.stderr?.setEncoding("utf8").on("data", (s: string) => (stderr += s));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void killProcessGroup(pgid);
  }, opts.timeoutMs);
  try {
    const { code } = await exited;
    await childClosed(closed);
    return { code: timedOut ? null : code, stdout, stderr, timedOut };
  } finally {
    clearTimeout(timer);
    await killProcessGroup(pgid);
    untrack();
  }
}

/**
 * Starts `program` and forgets it: in its own session, untracked, unreferenced, so it outlives
 * this process. For clean-up that must run as the host exits (removing a container).
 */
export function spawnDetached(program: string, args: readonly string[], env: NodeJS.ProcessEnv): void {
  try {
    const child = spawn(program, args, { env, detached: true, stdio: "ignore" });
    child.on("error", () => undefined);
    child.unref();
  } catch {
    // Exit-time clean-up is best effort: the next environment reaps what is left (by label).
  }
}
