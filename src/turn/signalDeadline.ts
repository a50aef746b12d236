import { timerDelay } from "../util/index.js";

/*
 * A time limit on one wait (a dynamic tool's answer, a person's, a search): a signal of its own.
 * Not the runtime's per-call deadlines (runtime/callDeadlines.ts, timed by runtime/deadlineWheel.ts).
 */

export interface Deadline {
  /** Aborts when the parent signal does, or when the time is up. */
  readonly signal: AbortSignal;
  /** True once the time ran out (rather than the parent aborting). */
  readonly expired: boolean;
  /** Stops the timer and unhooks from the parent; call when the work is done. */
  dispose(): void;
}

/**
 * `signal` with a time limit. Unlike `AbortSignal.timeout`, the timer keeps the process alive,
 * so a call waiting on nothing else still ends with its timeout output instead of the process
 * exiting under it; and nothing is left registered on the parent once disposed.
 */
export function deadline(parent: AbortSignal, ms: number): Deadline {
  const controller = new AbortController();
  let expired = false;
  const onParentAbort = (): void => {
    controller.abort(parent.reason);
  };
  const timer = setTimeout(() => {
    expired = true;
    controller.abort(new Error(`timed out after ${ms} ms`));
  }, timerDelay(ms));
  if (parent.aborted) onParentAbort();
  else parent.addEventListener("abort", onParentAbort, { once: true });
  return {
    signal: controller.signal,
    get expired() {
      return expired;
    },
    dispose() {
      clearTimeout(timer);
      parent.removeEventListener("abort", onParentAbort);
    },
  };
}
