import { now, timerDelay } from "../util/index.js";

/** A runtime whose calls have deadlines: the wheel asks it to expire what is due. */
export interface DeadlineOwner {
  /** Expires the calls due at `at`; returns its next deadline (Infinity: none running). */
  sweepDeadlines(at: number): number;
}

/**
 * What the wheel holds for one runtime: the runtime itself only while one of its calls has a
 * live deadline. An idle runtime clears `owner` (a field write, no set traffic), so a finished
 * runtime, and every call and output it still holds, is not kept alive by the wheel: held, a
 * batch's runtime survived young collections and was copied and promoted for nothing.
 */
export interface DeadlineSlot {
  owner: DeadlineOwner | undefined;
  /** The wheel's bookkeeping: true while it holds this slot. */
  watched: boolean;
}

/** Idle slots the wheel may hold before it lets them go (bounded retention, no per-call set churn). */
const MAX_IDLE_SLOTS = 64;

/**
 * One timer for every running call's deadline in the process, rather than one per call or per
 * runtime: a timer costs about as much as the rest of a call's overhead. A runtime's slot joins
 * when a call of it starts and stays while it alternates between busy and idle (a set insertion
 * per call would cost as much again); idle slots are let go at the next sweep, or once more than
 * MAX_IDLE_SLOTS are held. The timer never keeps the process alive by itself.
 */
function createDeadlineWheel(): { watch(slot: DeadlineSlot, at: number): void } {
  const slots = new Set<DeadlineSlot>();
  let timer: NodeJS.Timeout | undefined;
  let armedAt = Infinity;

  const arm = (at: number): void => {
    clearTimeout(timer);
    armedAt = at;
    timer = setTimeout(fire, timerDelay(at - now())).unref();
  };

  const release = (slot: DeadlineSlot): void => {
    slots.delete(slot);
    slot.watched = false;
  };

  const fire = (): void => {
    armedAt = Infinity;
    timer = undefined;
    const at = now();
    let next = Infinity;
    for (const slot of slots) {
      const due = slot.owner?.sweepDeadlines(at) ?? Infinity;
      if (due === Infinity) release(slot);
      else next = Math.min(next, due);
    }
    if (next < Infinity) arm(next);
  };

  return {
    /** `slot`'s owner has a running call due at `at` or later. */
    watch(slot, at) {
      if (!slot.watched) {
        if (slots.size >= MAX_IDLE_SLOTS) for (const held of slots) if (held.owner === undefined) release(held);
        slots.add(slot);
        slot.watched = true;
      }
      if (at < armedAt) arm(at);
    },
  };
}

export const deadlineWheel = createDeadlineWheel();
