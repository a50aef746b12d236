import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GRANTED, SharedExclusiveLock, type LockRequest } from "../../src/runtime/lock.js";

interface Req extends LockRequest {
  readonly id: number;
}

interface Harness {
  lock: SharedExclusiveLock<Req>;
  held: Set<Req>;
  /** Ids in grant order. */
  granted: number[];
  violations: string[];
  maxShared: number;
  nextId: number;
  /** Requests one; returns it and its ticket (GRANTED when granted at once). */
  request(exclusive: boolean): { r: Req; ticket: number };
  release(r: Req): void;
}

/**
 * A lock whose every grant is checked against invariants 2 and 3 as it happens: an exclusive
 * holder alone, at most `capacity` shared holders, and grants in request order. What each grant
 * callback does is up to `onGrant` (release at once, request more, nothing).
 */
function observed(capacity: number, onGrant: (r: Req, h: Harness) => void = () => undefined): Harness {
  const h: Harness = {
    held: new Set<Req>(),
    granted: [],
    violations: [],
    maxShared: 0,
    nextId: 0,
    lock: new SharedExclusiveLock<Req>(capacity, (r) => {
      grant(r);
    }),
    request(exclusive) {
      const r = { id: h.nextId++, exclusive };
      const ticket = h.lock.request(r);
      if (ticket === GRANTED) grant(r);
      return { r, ticket };
    },
    release(r) {
      h.held.delete(r);
      h.lock.release(r.exclusive);
    },
  };
  const grant = (r: Req): void => {
    const exclusiveHeld = [...h.held].some((x) => x.exclusive);
    if (exclusiveHeld) h.violations.push(`${r.id} granted while an exclusive request held the lock`);
    if (r.exclusive && h.held.size > 0) h.violations.push(`exclusive ${r.id} granted beside ${h.held.size} holders`);
    const last = h.granted[h.granted.length - 1];
    if (last !== undefined && last > r.id) h.violations.push(`${r.id} granted after the later ${last}`);
    h.held.add(r);
    h.granted.push(r.id);
    if (!r.exclusive) h.maxShared = Math.max(h.maxShared, h.held.size);
    if (!r.exclusive && h.held.size > capacity) h.violations.push(`${h.held.size} shared holders, cap ${capacity}`);
    onGrant(r, h);
  };
  return h;
}

/** Counts every element read and write the lock makes on its queue (a Proxy in its place). */
function countQueueOps(lock: SharedExclusiveLock<Req>): { ops: number } {
  const counter = { ops: 0 };
  const inner = lock as unknown as { queue: unknown[] };
  inner.queue = new Proxy(inner.queue, {
    get(target, key, receiver) {
      counter.ops++;
      return Reflect.get(target, key, receiver) as unknown;
    },
    set(target, key, value, receiver) {
      counter.ops++;
      return Reflect.set(target, key, value, receiver);
    },
  });
  return counter;
}

describe("SharedExclusiveLock", () => {
  it("grants shared requests at once while slots are free and nothing is queued", () => {
    const h = observed(2);
    expect(h.request(false).ticket).toBe(GRANTED);
    expect(h.request(false).ticket).toBe(GRANTED);
    const third = h.request(false);
    expect(third.ticket).not.toBe(GRANTED); // the cap
    expect(h.granted).toEqual([0, 1]);
    h.release([...h.held][0]!);
    expect(h.granted).toEqual([0, 1, 2]);
    expect(h.violations).toEqual([]);
  });

  it("never lets a request cut in ahead of a queued one, even with a slot free", () => {
    const h = observed(2);
    const first = h.request(false).r;
    h.request(true); // one shared holder left: the exclusive waits
    const later = h.request(false);
    expect(later.ticket).not.toBe(GRANTED); // a free slot, but the exclusive is first in line
    expect(h.granted).toEqual([0]);
    h.release(first);
    expect(h.granted).toEqual([0, 1]); // the exclusive, alone
    h.release([...h.held][0]!);
    expect(h.granted).toEqual([0, 1, 2]);
    h.release(later.r);
    expect(h.request(true).ticket).toBe(GRANTED); // everything released
    expect(h.violations).toEqual([]);
  });

  it("overlaps shared requests up to the cap between exclusive ones, in request order", () => {
    const h = observed(3);
    const kinds = [false, false, false, false, true, false, false, true, true, false];
    for (const exclusive of kinds) h.request(exclusive);
    // Observed overlap, not timing: who holds the lock after each release.
    const holders: number[][] = [[...h.held].map((r) => r.id)];
    while (h.held.size > 0) {
      h.release([...h.held][0]!);
      holders.push([...h.held].map((r) => r.id).sort((a, b) => a - b));
    }
    expect(holders).toEqual([[0, 1, 2], [1, 2, 3], [2, 3], [3], [4], [5, 6], [6], [7], [8], [9], []]);
    expect(h.granted).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(h.maxShared).toBe(3);
    expect(h.violations).toEqual([]);
  });

  it("drops a waiter cancelled while queued: it is never granted, and the requests it blocked move up at once", () => {
    const h = observed(2);
    const reader = h.request(false).r;
    const writer = h.request(true);
    const lateReader = h.request(false);
    expect(h.granted).toEqual([0]);
    expect(h.lock.cancel(writer.ticket)).toBe(true);
    // The later reader now overlaps the first one: the cancelled writer no longer blocks it.
    expect([...h.held].map((r) => r.id)).toEqual([0, 2]);
    expect(h.lock.cancel(writer.ticket)).toBe(false); // already dropped
    expect(h.lock.cancel(lateReader.ticket)).toBe(false); // already granted
    h.release(reader);
    h.release(lateReader.r);
    expect(h.granted).toEqual([0, 2]);
    expect(h.request(true).ticket).toBe(GRANTED);
    expect(h.violations).toEqual([]);
  });

  it("a cancelled waiter in the middle of the queue is skipped when its turn comes", () => {
    const h = observed(1);
    const holder = h.request(true).r;
    const a = h.request(true);
    const b = h.request(true);
    h.request(true);
    expect(h.lock.cancel(b.ticket)).toBe(true);
    expect(h.granted).toEqual([0]); // a still waits for the holder
    h.release(holder);
    h.release(a.r);
    expect(h.granted).toEqual([0, 1, 3]);
    expect(h.violations).toEqual([]);
  });

  it("is re-entrant: 100 000 grants released inside their own callbacks run in order, without recursion", () => {
    const h = observed(4, (r, harness) => {
      harness.release(r);
    });
    const blocker = { id: -1, exclusive: true };
    expect(h.lock.request(blocker)).toBe(GRANTED);
    for (let i = 0; i < 100_000; i++) h.request(i % 7 === 0);
    expect(h.granted).toEqual([]);
    // A recursive pump would overflow the stack here.
    h.lock.release(true);
    expect(h.granted).toHaveLength(100_000);
    expect(h.granted.every((id, i) => id === i)).toBe(true);
    expect(h.held.size).toBe(0);
    expect(h.violations).toEqual([]);
  });

  it("a request made inside a grant callback queues behind the ones already waiting", () => {
    const made: number[] = [];
    const h = observed(1, (r, harness) => {
      if (r.id < 3) made.push(harness.request(false).r.id);
      harness.release(r);
    });
    const holder = { id: -1, exclusive: true };
    h.lock.request(holder);
    h.request(false); // 0
    h.request(false); // 1
    h.lock.release(true);
    // 0 asks for 2 and 1 for 3 while queued work remains: each waits its turn behind them.
    expect(made).toEqual([2, 3, 4]);
    expect(h.granted).toEqual([0, 1, 2, 3, 4]);
    expect(h.violations).toEqual([]);
  });

  it("keeps FIFO order, the cap and exclusivity under random requests, releases and cancels (property)", () => {
    type Op = { kind: "request"; exclusive: boolean } | { kind: "release" | "cancel"; pick: number };
    const opArb: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ kind: fc.constant("request" as const), exclusive: fc.boolean() }),
      fc.record({ kind: fc.constantFrom("release" as const, "cancel" as const), pick: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.array(opArb, { maxLength: 60 }), (capacity, ops) => {
        const h = observed(capacity);
        const waiting = new Map<number, { r: Req; ticket: number }>();
        const cancelled = new Set<number>();
        const settle = (): void => {
          for (const id of h.granted) waiting.delete(id);
        };
        for (const op of ops) {
          if (op.kind === "request") {
            const req = h.request(op.exclusive);
            if (req.ticket !== GRANTED) waiting.set(req.r.id, req);
          } else if (op.kind === "release") {
            const holders = [...h.held];
            const r = holders[op.pick % Math.max(1, holders.length)];
            if (r) h.release(r);
          } else {
            const queued = [...waiting.values()];
            const w = queued[op.pick % Math.max(1, queued.length)];
            if (w) {
              expect(h.lock.cancel(w.ticket)).toBe(true);
              waiting.delete(w.r.id);
              cancelled.add(w.r.id);
            }
          }
          settle();
          // Never stalled: if anything waits, the oldest waiter really does not fit now.
          const oldest = [...waiting.values()].sort((a, b) => a.r.id - b.r.id)[0];
          if (oldest) {
            const exclusiveHeld = [...h.held].some((x) => x.exclusive);
            const fits = !exclusiveHeld && (oldest.r.exclusive ? h.held.size === 0 : h.held.size < capacity);
            expect(fits).toBe(false);
          }
        }
        // Releasing everything grants every request that was not cancelled, exactly once.
        while (h.held.size > 0) h.release([...h.held][0]!);
        const expected = Array.from({ length: h.nextId }, (_, id) => id).filter((id) => !cancelled.has(id));
        expect(h.granted).toEqual(expected);
        expect(h.violations).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it("costs a bounded number of queue operations per request at any depth (no shifting)", () => {
    /** Queues `n` requests behind an exclusive holder, cancels every tenth, then lets them through one release at a time. */
    const opsPerRequest = (n: number): number => {
      const h = observed(1);
      const holder = h.request(true).r;
      const counter = countQueueOps(h.lock);
      const tickets = Array.from({ length: n }, () => h.request(false));
      for (let i = 0; i < n; i += 10) h.lock.cancel(tickets[i]!.ticket);
      h.release(holder);
      while (h.held.size > 0) h.release([...h.held][0]!);
      expect(h.granted).toHaveLength(1 + n - n / 10);
      expect(h.violations).toEqual([]);
      return counter.ops / n;
    };
    const small = opsPerRequest(10_000);
    const large = opsPerRequest(100_000);
    // Linear work: the same few operations per request at 10 000 and at 100 000 deep (an
    // array shift per grant would make the deep queue's count ten times the shallow one's).
    expect(large).toBeLessThan(small * 1.5);
    expect(large).toBeLessThan(40);
  });
});
