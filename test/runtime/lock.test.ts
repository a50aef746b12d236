import { describe, expect, it } from "vitest";
import { SharedExclusiveLock } from "../../src/runtime/lock.js";
import { flush } from "../support/harness.js";

describe("SharedExclusiveLock", () => {
  it("grants shared requests at once while permits are free and nothing is queued", () => {
    const lock = new SharedExclusiveLock(2);
    expect(lock.tryAcquire(false)).not.toBeNull();
    expect(lock.tryAcquire(false)).not.toBeNull();
    expect(lock.tryAcquire(false)).toBeNull(); // the cap
  });

  it("never lets a request cut in ahead of a queued one, even with a permit free", async () => {
    const lock = new SharedExclusiveLock(2);
    const first = lock.tryAcquire(false)!;
    const order: string[] = [];
    const exclusive = lock.acquire(true).then((release) => {
      order.push("exclusive");
      return release;
    });
    await flush();
    expect(order).toEqual([]); // one shared holder left: the exclusive waits
    expect(lock.tryAcquire(false)).toBeNull(); // a free permit, but the exclusive is first in line
    const later = lock.acquire(false).then((release) => {
      order.push("later shared");
      return release;
    });
    first();
    const releaseExclusive = await exclusive;
    await flush();
    expect(order).toEqual(["exclusive"]);
    releaseExclusive();
    (await later)();
    expect(order).toEqual(["exclusive", "later shared"]);
    expect(lock.tryAcquire(true)).not.toBeNull(); // everything released
  });
});
