import { now, timerDelay } from "../util/index.js";

/**
 * One timer for every running call's deadline, rather than one per call: a timer costs about
 * as much as the rest of a call's overhead. It is armed for the earliest deadline it was told
 * of, and when it fires `sweep` expires what is due and says when to look next. It keeps the
 * process alive only while some call is running (so a hung call still gets its deadline
 * answer), never after the last one finished.
 */
export class DeadlineTimer {
  private timer: NodeJS.Timeout | undefined;
  private armedAt = Infinity;
  private live = 0;

  /** `sweep` expires the calls that are due and returns the next deadline (Infinity: none). */
  constructor(private readonly sweep: (at: number) => number) {}

  /** A call started: its deadline is at `at` (ms, `now()` clock) or later. */
  add(at: number): void {
    if (++this.live === 1) this.timer?.ref();
    if (at < this.armedAt) this.arm(at);
  }

  /** A call no longer needs its deadline (it settled, or it was released as leaked). */
  remove(): void {
    if (--this.live === 0) this.timer?.unref();
  }

  private arm(at: number): void {
    clearTimeout(this.timer);
    this.armedAt = at;
    this.timer = setTimeout(this.fire, timerDelay(at - now()));
    if (this.live === 0) this.timer.unref();
  }

  private readonly fire = (): void => {
    this.armedAt = Infinity;
    this.timer = undefined;
    const next = this.sweep(now());
    if (next < Infinity) this.arm(next);
  };
}
