import { now, timerDelay } from "../util/index.js";

/**
 * One timer for every running call's deadline, rather than one per call: a timer costs about
 * as much as the rest of a call's overhead. It is armed for the earliest deadline it was told
 * of, and when it fires `sweep` expires what is due and says when to look next. It never keeps
 * the process alive by itself: toggling a timer's ref on every call costs a native call each
 * time, and a process with nothing else to do has nobody waiting for the answer.
 */
export class DeadlineTimer {
  private timer: NodeJS.Timeout | undefined;
  private armedAt = Infinity;

  /** `sweep` expires the calls that are due and returns the next deadline (Infinity: none). */
  constructor(private readonly sweep: (at: number) => number) {}

  /** A call started: its deadline is at `at` (ms, `now()` clock) or later. */
  add(at: number): void {
    if (at < this.armedAt) this.arm(at);
  }

  private arm(at: number): void {
    clearTimeout(this.timer);
    this.armedAt = at;
    this.timer = setTimeout(this.fire, timerDelay(at - now())).unref();
  }

  private readonly fire = (): void => {
    this.armedAt = Infinity;
    this.timer = undefined;
    const next = this.sweep(now());
    if (next < Infinity) this.arm(next);
  };
}
