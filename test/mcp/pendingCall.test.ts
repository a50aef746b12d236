import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { CallDeadlines, PendingCall } from "../../src/mcp/pendingCall.js";

/** Resolves with the abort reason once the call is aborted (the one listener the SDK registers). */
const aborted = (call: PendingCall): Promise<unknown> =>
  new Promise((resolve) => {
    call.addEventListener("abort", () => {
      resolve(call.reason);
    });
  });

const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;

describe("CallDeadlines", () => {
  it("runs every call's deadline on one timer that keeps no process alive", () => {
    const deadlines = new CallDeadlines();
    const before = timers();
    const calls = Array.from({ length: 50 }, () => new PendingCall(60_000));
    for (const call of calls) deadlines.start(call);
    expect(timers()).toBe(before);
    for (const call of calls) deadlines.end(call);
  });

  it("expires a short deadline started after a long one, and only that call", async () => {
    const deadlines = new CallDeadlines();
    const long = new PendingCall(60_000);
    const short = new PendingCall(20);
    deadlines.start(long);
    deadlines.start(short);
    const reason = await aborted(short);
    expect(reason).toMatchObject({ message: "timed out awaiting tools/call after 0.02s", timedOut: true });
    expect(short.cancelled).toBe(false);
    expect(long.aborted).toBe(false);
    deadlines.end(short);
    deadlines.end(long);
  });

  it("expires a call the timer passed over once its own deadline comes", async () => {
    const deadlines = new CallDeadlines();
    const first = new PendingCall(20);
    deadlines.start(first);
    await aborted(first);
    deadlines.end(first);
    // The timer is spent; a later call needs it armed again.
    const later = new PendingCall(20);
    deadlines.start(later);
    expect(await aborted(later)).toMatchObject({ timedOut: true });
  });

  it("pauses every deadline while the server asks, and restarts them in full after", async () => {
    const deadlines = new CallDeadlines();
    const call = new PendingCall(10);
    deadlines.start(call);
    const expired = aborted(call);
    await deadlines.paused(async () => {
      // Far past the deadline: with the deadlines paused, nothing may expire it.
      await sleep(60);
      expect(call.aborted).toBe(false);
    });
    expect(await expired).toMatchObject({ timedOut: true });
  });
});
