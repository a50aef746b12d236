import { childClosed, killProcessGroup, spawnGroup, terminateProcessGroup, type GroupChild } from "../process/index.js";
import { errorMessage, timerDelay } from "../util/index.js";

/** Most a hook may print on each of stdout and stderr; past it the hook is killed and its output ignored. */
export const HOOK_OUTPUT_LIMIT = 1024 * 1024;

export interface HookProcessOptions {
  /** Run by `/bin/sh -c`, as Claude Code and Codex do. */
  command: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
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
 * Runs one hook command in its own process group, tracked so it dies with the host. A timeout
 * terminates the group (SIGTERM, then SIGKILL after the grace); an abort or too much output
 * SIGKILLs it at once. When the promise settles no process of the group is alive, background
 * children included (as for shell commands: nothing outlives its call). Never rejects.
 */
export async function runHookProcess(opts: HookProcessOptions): Promise<HookProcessResult> {
  if (opts.signal.aborted) return { kind: "aborted" };
  let started: GroupChild;
  try {
    started = await spawnGroup("/bin/sh", ["-c", opts.command], {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
  } catch (err) {
    return { kind: "failed", message: errorMessage(err) };
  }
  const { child, pgid, closed, exited, untrack } = started;

  let ending: Exclude<HookProcessResult["kind"], "exited" | "failed"> | undefined;
  let overflowed: "stdout" | "stderr" = "stdout";
  const kills: Promise<void>[] = [];
  const stop = (why: NonNullable<typeof ending>, kill: () => Promise<void>): void => {
    // The first reason ends the hook; only an abort overrides it, cutting a timeout's grace short.
    if (ending !== undefined && (why !== "aborted" || ending === "aborted")) return;
    ending = why;
    kills.push(kill());
  };
  const out = new Capture();
  const err = new Capture();
  const listen = (stream: "stdout" | "stderr", capture: Capture): void => {
    child[stream]?.on("data", (chunk: Buffer) => {
      if (!capture.add(chunk) && ending === undefined) {
        overflowed = stream;
        stop("overflow", () => killProcessGroup(pgid));
      }
    });
  };
  listen("stdout", out);
  listen("stderr", err);
  // A hook that exits without reading its input closes the pipe under us (EPIPE): harmless.
  child.stdin?.on("error", () => undefined);
  child.stdin?.end(opts.input);

  const timer = setTimeout(() => {
    stop("timed_out", () => terminateProcessGroup(pgid));
  }, timerDelay(opts.timeoutMs));
  const onAbort = (): void => {
    stop("aborted", () => killProcessGroup(pgid));
  };
  opts.signal.addEventListener("abort", onAbort, { once: true });
  // An abort while we waited for the `spawn` event fired no listener: act on it now.
  if (opts.signal.aborted) onAbort();
  try {
    const { code, signal } = await exited;
    clearTimeout(timer);
    opts.signal.removeEventListener("abort", onAbort);
    // A hook that ended by itself may have left background processes: they die with it.
    if (kills.length === 0) kills.push(killProcessGroup(pgid));
    await Promise.all(kills);
    await childClosed(closed);
    if (ending === "overflow") return { kind: "overflow", stream: overflowed };
    if (ending !== undefined) return { kind: ending };
    return { kind: "exited", code, signal, stdout: out.text(), stderr: err.text() };
  } finally {
    clearTimeout(timer);
    opts.signal.removeEventListener("abort", onAbort);
    untrack();
    child.stdout?.destroy();
    child.stderr?.destroy();
  }
}
