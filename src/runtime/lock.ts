/** What the lock queues: a request runs alone when `exclusive`, else alongside other shared ones. */
export interface LockRequest {
  readonly exclusive: boolean;
}

/** `request`'s answer when the request was granted at once (the grant callback is not called). */
export const GRANTED = -1;

/** Shortest consumed prefix worth moving the queue for; shorter ones wait until the queue empties. */
const COMPACT_AT = 1024;

/**
 * A FIFO shared/exclusive lock with a concurrency cap: at most `capacity` shared holders at once,
 * an exclusive holder alone, and requests granted strictly in request order, so a queued
 * exclusive request blocks every later one (nothing overtakes an earlier conflicting request).
 *
 * Queued requests are granted by calling `grant(request)`, not by resolving a promise per
 * request: a queued request costs one array slot. Every operation is O(1) amortized at any
 * queue depth: the queue is an array read from a head index, compacted in place once the
 * consumed prefix is at least half of it (each request is moved at most once per halving).
 * A queued request can be dropped by its ticket (`cancel`), leaving a hole the head skips.
 *
 * Re-entrancy: `grant` may release or request synchronously. A release inside a grant callback
 * only updates the counts; the loop already granting picks up what it frees, so the stack never
 * grows with the queue and order is kept.
 */
export class SharedExclusiveLock<R extends LockRequest> {
  /** Shared holders now. */
  private shared = 0;
  private exclusiveHeld = false;
  /** Requests in order; granted and cancelled ones are holes (undefined) until compaction. */
  private readonly queue: (R | undefined)[] = [];
  /** Index of the oldest request that may still be waiting. */
  private head = 0;
  /** The ticket of `queue[0]`: tickets stay valid across compactions. */
  private base = 0;
  /** True while `pump` runs: a release or cancel inside a grant callback leaves the granting to it. */
  private pumping = false;

  constructor(
    readonly capacity: number,
    /** Called once per queued request, when its turn comes; must not throw. */
    private readonly grant: (request: R) => void,
  ) {}

  /**
   * Grants `request` now when nothing is queued and it fits (returns GRANTED; `grant` is not
   * called), else queues it behind every earlier request and returns its ticket for `cancel`.
   */
  request(request: R): number {
    if (this.head === this.queue.length && this.fits(request.exclusive)) {
      this.take(request.exclusive);
      return GRANTED;
    }
    return this.base + this.queue.push(request) - 1;
  }

  /** Gives back a granted request's hold and grants whatever now fits, in order. */
  release(exclusive: boolean): void {
    if (exclusive) this.exclusiveHeld = false;
    else this.shared--;
    this.pump();
  }

  /**
   * Drops a queued request (aborted while waiting): it is never granted, and the requests behind
   * it move up at once if it was the one blocking them. False when it is no longer queued.
   */
  cancel(ticket: number): boolean {
    const at = ticket - this.base;
    if (at < this.head || at >= this.queue.length || this.queue[at] === undefined) return false;
    this.queue[at] = undefined;
    this.pump();
    return true;
  }

  private fits(exclusive: boolean): boolean {
    return !this.exclusiveHeld && (exclusive ? this.shared === 0 : this.shared < this.capacity);
  }

  private take(exclusive: boolean): void {
    if (exclusive) this.exclusiveHeld = true;
    else this.shared++;
  }

  private pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    const queue = this.queue;
    try {
      while (this.head < queue.length) {
        const next = queue[this.head];
        if (next !== undefined) {
          if (!this.fits(next.exclusive)) break;
          this.take(next.exclusive);
          queue[this.head] = undefined;
        }
        this.head++;
        // May release (or request) re-entrantly: the counts change, and this loop sees them.
        if (next !== undefined) this.grant(next);
      }
    } finally {
      this.pumping = false;
      this.compact();
    }
  }

  private compact(): void {
    const queue = this.queue;
    const head = this.head;
    if (head === 0) return;
    if (head === queue.length) {
      queue.length = 0;
    } else if (head >= COMPACT_AT && head * 2 >= queue.length) {
      queue.copyWithin(0, head);
      queue.length -= head;
    } else {
      return;
    }
    this.base += head;
    this.head = 0;
  }
}
