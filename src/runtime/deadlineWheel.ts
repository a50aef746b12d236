import { now, timerDelay } from "../util/index.js";

/** A runtime whose calls have deadlines: the wheel asks it to expire what is due. */
export interface DeadlineOwner {
  /** Expires the calls due at `at`; returns its next deadline (Infinity: none running). */
  sweepDeadlines(at: number): number;
  /** No call of it holds a live deadline now. */
  idle(): boolean;
  /** The wheel's bookkeeping: true while it holds this owner. */
  watched: boolean;
}

/** Idle owners the wheel may hold before it lets them go (bounded retention, no per-call set churn). */
const MAX_IDLE_OWNERS = 64;

/**
 * One timer for every running call's deadline in the process, rather than one per call or per
 * runtime: a timer costs about as much as the rest of a call's overhead. A runtime joins when
 * a call of it starts and stays while it alternates between busy and idle (a set insertion per
 * call would cost as much again); idle runtimes are let go at the next sweep, or once more than
 * MAX_IDLE_OWNERS are held, so a finished runtime is not kept in memory for long. The timer
 * never keeps the process alive by itself.
 */
function createDeadlineWheel(): { watch(owner: DeadlineOwner, at: number): void } {
  const owners = new Set<DeadlineOwner>();
  let timer: NodeJS.Timeout | undefined;
  let armedAt = Infinity;

  const arm = (at: number): void => {
    clearTimeout(timer);
    armedAt = at;
    timer = setTimeout(fire, timerDelay(at - now())).unref();
  };

  const release = (owner: DeadlineOwner): void => {
    owners.delete(owner);
    owner.watched = false;
  };

  const fire = (): void => {
    armedAt = Infinity;
    timer = undefined;
    const at = now();
    let next = Infinity;
    for (const owner of owners) {
      const due = owner.sweepDeadlines(at);
      if (due === Infinity) release(owner);
      else next = Math.min(next, due);
    }
    if (next < Infinity) arm(next);
  };

  return {
    /** `owner` has a running call due at `at` or later. */
    watch(owner, at) {
      if (!owner.watched) {
        if (owners.size >= MAX_IDLE_OWNERS) for (const held of owners) if (held.idle()) release(held);
        owners.add(owner);
        owner.watched = true;
      }
      if (at < armedAt) arm(at);
    },
  };
}

export const deadlineWheel = createDeadlineWheel();
