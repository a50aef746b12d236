import { now, timerDelay } from "../util/index.js";

/** A runtime whose running calls have deadlines: the wheel asks it to expire what is due. */
export interface DeadlineOwner {
  /** Expires the calls due at `at`; returns its next deadline (Infinity: none). */
  sweepDeadlines(at: number): number;
}

/**
 * One timer for every running call's deadline in the process, rather than one per call or per
 * runtime: a timer costs about as much as the rest of a call's overhead. A runtime is held
 * only while it has running calls (`watch` when its first starts, `unwatch` when its last
 * ends), so an idle or finished runtime is never kept in memory by it. The timer never keeps
 * the process alive by itself.
 */
function createDeadlineWheel(): {
  watch(owner: DeadlineOwner, at: number): void;
  unwatch(owner: DeadlineOwner): void;
} {
  const owners = new Set<DeadlineOwner>();
  let timer: NodeJS.Timeout | undefined;
  let armedAt = Infinity;

  const arm = (at: number): void => {
    clearTimeout(timer);
    armedAt = at;
    timer = setTimeout(fire, timerDelay(at - now())).unref();
  };

  const fire = (): void => {
    armedAt = Infinity;
    timer = undefined;
    const at = now();
    let next = Infinity;
    for (const owner of owners) next = Math.min(next, owner.sweepDeadlines(at));
    if (next < Infinity) arm(next);
  };

  return {
    watch(owner, at) {
      owners.add(owner);
      if (at < armedAt) arm(at);
    },
    unwatch(owner) {
      owners.delete(owner);
    },
  };
}

export const deadlineWheel = createDeadlineWheel();
