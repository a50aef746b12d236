import { describe, expect, it } from "vitest";
import { FlagAlreadyReadyError, ReadinessFlag } from "../../src/index.js";
import { flush } from "../support/harness.js";

describe("ReadinessFlag (Codex readiness semantics)", () => {
  it("subscribe then markReady opens the gate for good; the token works once", () => {
    const flag = new ReadinessFlag();
    const token = flag.subscribe();
    expect(flag.isReady()).toBe(false);
    expect(flag.markReady(token)).toBe(true);
    expect(flag.isReady()).toBe(true);
    expect(flag.markReady(token)).toBe(false);
  });

  it("subscribe throws once the flag is ready", () => {
    const flag = new ReadinessFlag();
    expect(flag.markReady(flag.subscribe())).toBe(true);
    expect(() => flag.subscribe()).toThrow(FlagAlreadyReadyError);
  });

  it("a flag without subscribers latches to ready when asked", () => {
    const flag = new ReadinessFlag();
    expect(flag.isReady()).toBe(true);
    expect(() => flag.subscribe()).toThrow("Flag is already ready. Impossible to subscribe");
  });

  it("rejects unknown and foreign tokens", () => {
    const a = new ReadinessFlag();
    const b = new ReadinessFlag();
    const tokenA = a.subscribe();
    b.subscribe();
    expect(b.markReady(tokenA)).toBe(false);
    expect(b.isReady()).toBe(false);
    expect(a.markReady(tokenA)).toBe(true);
  });

  it("any one of several subscribers opens the gate", () => {
    const flag = new ReadinessFlag();
    const t1 = flag.subscribe();
    const t2 = flag.subscribe();
    expect(flag.markReady(t2)).toBe(true);
    expect(flag.markReady(t1)).toBe(false);
    expect(flag.isReady()).toBe(true);
  });

  it("waitReady resolves when marked ready and rejects when its signal aborts", async () => {
    const flag = new ReadinessFlag();
    const token = flag.subscribe();
    let resolved = false;
    const waiting = flag.waitReady().then(() => (resolved = true));
    const ctl = new AbortController();
    const aborted = flag.waitReady(ctl.signal);
    await flush();
    expect(resolved).toBe(false);
    ctl.abort(new Error("stop waiting"));
    await expect(aborted).rejects.toThrow("stop waiting");
    flag.markReady(token);
    await waiting;
    expect(resolved).toBe(true);
    await expect(flag.waitReady(ctl.signal)).resolves.toBeUndefined(); // ready wins over a stale signal
  });
});
