import { signalProcessGroup } from "./groups.js";
import { unwatch, watch } from "./watchdog.js";

/*
 * Process groups that must not outlive this process: shell commands and MCP stdio servers.
 * Each runs detached from the host (its own session), so neither the host's exit nor a Ctrl-C
 * at its terminal reaches it. While any group is tracked:
 *
 * - an `exit` listener SIGKILLs them all, synchronously;
 * - a SIGINT, SIGTERM or SIGHUP to the host is passed on to the groups tracked with
 *   `forwardHostSignals`, as the terminal would have done to its foreground job;
 * - if no other listener handles that signal (its default action would end the host), every
 *   group gets SIGKILL and the signal is re-raised, so the host still dies by it.
 *
 * And should the host die by SIGKILL, where no listener runs, the watchdog (watchdog.ts) kills
 * every group still tracked.
 *
 * How a host's own handler cooperates (the CLI's `onInterrupt`, an embedder's): any other
 * `process.on(signal)` listener means the host handles the signal, so this module only passes
 * it on and leaves the rest to that handler. The handler then either aborts the work (commands
 * end through their abort path, SIGTERM then SIGKILL) or calls `process.exit`, whose `exit`
 * listener here SIGKILLs whatever is still tracked. The order of the listeners does not matter.
 */

export interface TrackOptions {
  /**
   * Pass the host's SIGINT/SIGTERM/SIGHUP on to the group: right for a command the host runs
   * as its foreground job; wrong for a server the host keeps across its work (an embedder that
   * cancels a turn on Ctrl-C keeps its MCP servers), which only dies with the host.
   */
  forwardHostSignals?: boolean;
  /**
   * Default true: list the group with the watchdog (watchdog.ts). False for a program the
   * kernel already ends with the host (bubblewrap's `--die-with-parent` and PID namespace).
   */
  watchdog?: boolean;
}

interface TrackedGroup {
  readonly pgid: number;
  readonly forwardHostSignals: boolean;
}

const HOST_ENDING_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
const tracked = new Set<TrackedGroup>();
/** Clean-up that must run when the host ends (removing its containers); synchronous. */
const exitActions = new Set<() => void>();

const hooked = (): boolean => tracked.size > 0 || exitActions.size > 0;

const killTracked = (): void => {
  for (const group of tracked) signalProcessGroup(group.pgid, "SIGKILL");
  for (const action of exitActions) {
    try {
      action();
    } catch {
      // one failed clean-up must not keep the others from running
    }
  }
};

function onHostSignal(signal: NodeJS.Signals): void {
  for (const group of tracked) if (group.forwardHostSignals) signalProcessGroup(group.pgid, signal);
  if (process.listeners(signal).some((listener) => listener !== onHostSignal)) return;
  killTracked();
  tracked.clear();
  exitActions.clear();
  setHostHooks(false);
  process.kill(process.pid, signal);
}

function setHostHooks(on: boolean): void {
  const method = on ? "on" : "off";
  process[method]("exit", killTracked);
  for (const signal of HOST_ENDING_SIGNALS) process[method](signal, onHostSignal);
}

/**
 * Keeps the group from outliving this process (see above). Call the returned function once the
 * group is gone; calling it again is a no-op. The host hooks are installed only while some
 * group is tracked, so an idle host keeps its default signal handling.
 */
export function trackProcessGroup(pgid: number, opts: TrackOptions = {}): () => void {
  const group: TrackedGroup = { pgid, forwardHostSignals: opts.forwardHostSignals ?? false };
  if (!hooked()) setHostHooks(true);
  tracked.add(group);
  const watched = opts.watchdog ?? true;
  if (watched) watch(pgid);
  return () => {
    if (!tracked.delete(group)) return;
    if (watched) unwatch(pgid);
    if (!hooked()) setHostHooks(false);
  };
}

/**
 * Runs `action` (synchronously: start a detached clean-up, never wait for it) when this process
 * exits or a SIGINT, SIGTERM or SIGHUP ends it, on the same hooks as the tracked groups. Not on
 * SIGKILL: whoever registers must also clean up after a dead host (the Docker environment reaps
 * containers by label). Call the returned function once the action is no longer needed.
 */
export function onHostExit(action: () => void): () => void {
  // A function of its own, so registering the same action twice keeps two entries.
  const entry = (): void => {
    action();
  };
  if (!hooked()) setHostHooks(true);
  exitActions.add(entry);
  return () => {
    if (!exitActions.delete(entry)) return;
    if (!hooked()) setHostHooks(false);
  };
}
