/** How long to wait for pipes held open by a process that left the child's group (e.g. `setsid`). */
const PIPE_DRAIN_MS = 100;

/**
 * Waits for a child's `close` (it exited and its pipes drained), at most PIPE_DRAIN_MS: meant
 * for once its group is gone, when only a process that escaped the group can hold the pipes,
 * possibly forever. Leaves no timer behind.
 */
export async function childClosed(closed: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  // The timer fires in the loop's timers phase, before the poll phase reads what the pipes
  // already hold: on a loop that lagged past PIPE_DRAIN_MS, the output of a command that ended
  // would be dropped. setImmediate runs after one more poll phase.
  const drained = new Promise<void>((resolve) => (timer = setTimeout(() => setImmediate(resolve), PIPE_DRAIN_MS)));
  await Promise.race([closed, drained]);
  clearTimeout(timer);
}
