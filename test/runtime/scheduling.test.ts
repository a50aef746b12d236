import { describe, expect, it } from "vitest";
import { ReadinessFlag, ToolCallRuntime } from "../../src/index.js";
import { ControlledHandler, fc, flush, makeRuntime, Observer, text, waitFor } from "../support/harness.js";

describe("ToolCallRuntime scheduling", () => {
  it("runs shared calls at the same time (each waits until all three have started)", async () => {
    const obs = new Observer();
    const h = new ControlledHandler(obs);
    const { runtime } = makeRuntime([{ name: "read", handler: h, parallel: true }]);
    for (const id of ["a", "b", "c"]) runtime.submit(fc(id, "read"));
    // None is released until all three are running: only possible if they overlap.
    await waitFor(() => obs.active.size === 3, "three shared calls running together");
    for (const id of ["a", "b", "c"]) h.release(id);
    const out = await runtime.drain();
    expect(out.map(text)).toEqual(["done a", "done b", "done c"]);
    expect(obs.maxActive).toBe(3);
  });

  it("keeps FIFO order for R R W R R: the writer runs alone, later readers wait for it", async () => {
    const obs = new Observer();
    const reader = new ControlledHandler(obs);
    const writer = new ControlledHandler(obs);
    const { runtime } = makeRuntime([
      { name: "read", handler: reader, parallel: true },
      { name: "write", handler: writer, parallel: false },
    ]);
    runtime.submit(fc("r1", "read"));
    runtime.submit(fc("r2", "read"));
    runtime.submit(fc("w", "write"));
    runtime.submit(fc("r3", "read"));
    runtime.submit(fc("r4", "read"));

    await waitFor(() => obs.started.has("r1") && obs.started.has("r2"), "first readers");
    await flush(5);
    expect([...obs.started]).toEqual(["r1", "r2"]); // the queued writer blocks r3 and r4

    reader.release("r1");
    await flush(5);
    expect(obs.started.has("w")).toBe(false); // r2 still running

    reader.release("r2");
    await waitFor(() => obs.started.has("w"), "writer start");
    await flush(5);
    expect(obs.overlapAtStart.get("w")).toEqual([]);
    expect(obs.started.has("r3") || obs.started.has("r4")).toBe(false);

    writer.release("w");
    await waitFor(() => obs.started.has("r3") && obs.started.has("r4"), "last readers");
    expect(obs.overlapAtStart.get("r3")).not.toContain("w");
    reader.release("r3");
    reader.release("r4");
    const out = await runtime.drain();
    expect(out.map(text)).toEqual(["done r1", "done r2", "done w", "done r3", "done r4"]);
    expect(obs.log.indexOf("end:w")).toBeLessThan(obs.log.indexOf("start:r3"));
    expect(obs.log.indexOf("end:r2")).toBeLessThan(obs.log.indexOf("start:w"));
  });

  it("caps shared calls at maxConcurrency", async () => {
    const obs = new Observer();
    const h = new ControlledHandler(obs);
    const { runtime } = makeRuntime([{ name: "read", handler: h, parallel: true }], { maxConcurrency: 2 });
    const ids = ["a", "b", "c", "d", "e"];
    for (const id of ids) runtime.submit(fc(id, "read"));
    await waitFor(() => obs.active.size === 2, "two running");
    await flush(5);
    expect(obs.active.size).toBe(2);
    for (const id of ids) {
      await waitFor(() => obs.started.has(id), `start of ${id}`);
      h.release(id);
    }
    await runtime.drain();
    expect(obs.maxActive).toBe(2);
    expect([...obs.started]).toEqual(ids);
  });

  it("rejects maxConcurrency outside 1..256 or not an integer", () => {
    for (const bad of [0, 257, 1.5, Number.NaN]) {
      expect(() => makeRuntime([], { maxConcurrency: bad })).toThrow(/maxConcurrency must be an integer in 1\.\.256/);
    }
  });

  it("drain keeps submission order when calls finish in reverse", async () => {
    const obs = new Observer();
    const h = new ControlledHandler(obs);
    const { runtime } = makeRuntime([{ name: "read", handler: h, parallel: true }]);
    const ids = ["c1", "c2", "c3", "c4", "c5"];
    for (const id of ids) runtime.submit(fc(id, "read"));
    await waitFor(() => obs.active.size === 5, "all running");
    for (const id of [...ids].reverse()) {
      h.release(id);
      await flush(1);
    }
    const outcomes = await runtime.drainOutcomes();
    expect(outcomes.map((o) => o.callId)).toEqual(ids);
    expect(obs.log.filter((l) => l.startsWith("end:"))).toEqual(["end:c5", "end:c4", "end:c3", "end:c2", "end:c1"]);
  });

  it("drain includes calls submitted while it waits, and the next drain starts fresh", async () => {
    const obs = new Observer();
    const h = new ControlledHandler(obs);
    const { runtime } = makeRuntime([{ name: "read", handler: h, parallel: true }]);
    runtime.submit(fc("first", "read"));
    const draining = runtime.drain();
    runtime.submit(fc("second", "read"));
    await waitFor(() => obs.active.size === 2, "both running");
    h.release("second");
    h.release("first");
    expect((await draining).map(text)).toEqual(["done first", "done second"]);
    expect(await runtime.drain()).toEqual([]);
  });

  describe("readiness gate", () => {
    it("holds back mutating calls only, and releases them when the gate opens", async () => {
      const obs = new Observer();
      const gate = new ReadinessFlag();
      const token = gate.subscribe();
      const reader = new ControlledHandler(obs);
      const mutator = new ControlledHandler(obs, { mutating: true });
      const { runtime, events } = makeRuntime(
        [
          { name: "read", handler: reader, parallel: true },
          { name: "touch", handler: mutator, parallel: true },
        ],
        { turn: { toolCallGate: gate } },
      );
      runtime.submit(fc("r1", "read"));
      runtime.submit(fc("m", "touch"));
      runtime.submit(fc("r2", "read"));
      await waitFor(() => obs.started.has("r1") && obs.started.has("r2"), "readers");
      await flush(5);
      expect(obs.started.has("m")).toBe(false);
      expect(events.some((e) => e.type === "tool_call_begin" && e.callId === "m")).toBe(false);
      reader.release("r1");
      reader.release("r2");
      await flush(5);
      expect(obs.started.has("m")).toBe(false);

      expect(gate.markReady(token)).toBe(true);
      await waitFor(() => obs.started.has("m"), "mutating call after the gate opened");
      mutator.release("m");
      const outcomes = await runtime.drainOutcomes();
      expect(outcomes.map((o) => o.item)).toHaveLength(3);
      const m = outcomes[1]!;
      expect(m.success).toBe(true);
      expect(m.timing.gateWaitMs).toBeGreaterThan(0);
      expect(outcomes[0]!.timing.gateWaitMs).toBe(0);
    });

    it("an exclusive mutating call waiting at the gate keeps later calls waiting (invariant 3)", async () => {
      const obs = new Observer();
      const gate = new ReadinessFlag();
      const token = gate.subscribe();
      const reader = new ControlledHandler(obs);
      const mutator = new ControlledHandler(obs, { mutating: true });
      const { runtime } = makeRuntime(
        [
          { name: "read", handler: reader, parallel: true },
          { name: "patch", handler: mutator, parallel: false },
        ],
        { turn: { toolCallGate: gate } },
      );
      runtime.submit(fc("p", "patch"));
      runtime.submit(fc("r", "read"));
      await flush(10);
      expect(obs.started.size).toBe(0);
      gate.markReady(token);
      await waitFor(() => obs.started.has("p"), "patch");
      await flush(5);
      expect(obs.started.has("r")).toBe(false);
      mutator.release("p");
      await waitFor(() => obs.started.has("r"), "reader after patch");
      reader.release("r");
      expect((await runtime.drain()).map(text)).toEqual(["done p", "done r"]);
    });
  });

  it("handleToolCall runs one call and returns its outcome with a timing breakdown", async () => {
    const obs = new Observer();
    const h = new ControlledHandler(obs);
    const { runtime, router } = makeRuntime([{ name: "read", handler: h, parallel: true }]);
    const call = router.buildToolCall(fc("x", "read"))!;
    const pending = runtime.handleToolCall(call);
    await waitFor(() => obs.started.has("x"), "start");
    h.release("x");
    const outcome = await pending;
    expect(outcome).toMatchObject({ callId: "x", toolName: "read", success: true, aborted: false });
    expect(outcome.item).toEqual({ type: "function_call_output", call_id: "x", output: "done x" });
    for (const key of ["queuedMs", "lockWaitMs", "gateWaitMs", "handlerMs", "totalMs"] as const) {
      expect(outcome.timing[key]).toBeGreaterThanOrEqual(0);
    }
    expect(outcome.timing.totalMs).toBeGreaterThanOrEqual(outcome.timing.handlerMs);
    expect(await runtime.drain()).toEqual([]); // handleToolCall is not part of drain
  });

  it("a ToolCallRuntime can be built from a router and turn alone", () => {
    const { router, turn } = makeRuntime([]);
    expect(new ToolCallRuntime(router, turn)).toBeInstanceOf(ToolCallRuntime);
  });
});
