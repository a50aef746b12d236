import { Semaphore } from "async-mutex";

export type Release = () => void;

/**
 * A FIFO-fair shared/exclusive lock with a concurrency cap, in one primitive: a semaphore of
 * `capacity` permits where a shared holder takes 1 and an exclusive holder takes all. A queued
 * exclusive request blocks every later request, so conflicting calls run in request order.
 *
 * async-mutex cannot cancel a single waiter: a request abandoned while queued keeps its place
 * until granted, and its owner then releases at once.
 */
export class SharedExclusiveLock {
  private readonly semaphore: Semaphore;
  /** Requests handed to the semaphore and not yet seen granted: while any exist, nobody cuts in. */
  private waiting = 0;
  private readonly releaseShared: Release = () => {
    this.semaphore.release(1);
  };
  private readonly releaseExclusive: Release = () => {
    this.semaphore.release(this.capacity);
  };

  constructor(readonly capacity: number) {
    this.semaphore = new Semaphore(capacity);
    // async-mutex scans every weight from the free count down on each release, to wake
    // `waitForUnlock` callers; this lock never has any, and the scan is most of the release
    // cost at high capacities (DESIGN section 10). If the internal name changes, this
    // assignment is inert and the library's own scan runs.
    (this.semaphore as unknown as { _drainUnlockWaiters: () => void })._drainUnlockWaiters = () => undefined;
  }

  /**
   * Takes the permits at once when nothing is queued and enough are free, so an uncontended
   * call skips the semaphore's promise round trip; null means: queue with `acquire`.
   */
  tryAcquire(exclusive: boolean): Release | null {
    const weight = exclusive ? this.capacity : 1;
    const free = this.semaphore.getValue();
    if (this.waiting > 0 || free < weight) return null;
    this.semaphore.setValue(free - weight);
    return exclusive ? this.releaseExclusive : this.releaseShared;
  }

  /** Queues behind every earlier request; resolves with the release once granted. */
  acquire(exclusive: boolean): Promise<Release> {
    this.waiting++;
    // A plain `then` rather than an async frame: thousands of queued calls each hold one.
    return this.semaphore.acquire(exclusive ? this.capacity : 1).then(
      ([, release]) => {
        this.waiting--;
        return release;
      },
      (err: unknown) => {
        this.waiting--;
        throw err;
      },
    );
  }
}
