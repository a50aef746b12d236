/** A member of `RunningCalls`: its links live on the member itself. */
export interface RunningLinks<T> {
  prevRunning: T | undefined;
  nextRunning: T | undefined;
}

/**
 * The calls whose handler may still run, in the order they joined: an intrusive doubly linked
 * list rather than a `Set`: every call joins and leaves it once, and a set's hashing and entry
 * cost several times the two links, in time and in memory per queued call.
 */
export class RunningCalls<T extends RunningLinks<T>> implements Iterable<T> {
  private head: T | undefined;
  private tail: T | undefined;

  add(member: T): void {
    member.prevRunning = this.tail;
    member.nextRunning = undefined;
    if (this.tail) this.tail.nextRunning = member;
    else this.head = member;
    this.tail = member;
  }

  /** Removes `member`; nothing when it is not in the list (it left already). */
  delete(member: T): void {
    const { prevRunning: prev, nextRunning: next } = member;
    if (prev === undefined && this.head !== member) return;
    if (prev) prev.nextRunning = next;
    else this.head = next;
    if (next) next.prevRunning = prev;
    else this.tail = prev;
    member.prevRunning = undefined;
    member.nextRunning = undefined;
  }

  /** In joining order. Iterate a copy when the list may change meanwhile. */
  *[Symbol.iterator](): Iterator<T> {
    for (let member = this.head; member; member = member.nextRunning) yield member;
  }
}
