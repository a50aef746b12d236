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

  constructor(readonly capacity: number) {
    this.semaphore = new Semaphore(capacity);
    // async-mutex scans every weight from the free count down on each release, to wake
    // `waitForUnlock` callers; this lock never has any, and the scan is most of the release
    // cost at high capacities (DESIGN section 10). If the internal name changes, this
    // assignment is inert and the library's own scan runs.
    (this.semaphore as unknown as { _drainUnlockWaiters: () => void })._drainUnlockWaiters = () => undefined;
  }

  /** Resolves with `[permits left, release]` once granted. */
  acquire(exclusive: boolean): Promise<[number, Release]> {
    return this.semaphore.acquire(exclusive ? this.capacity : 1);
  }
}
