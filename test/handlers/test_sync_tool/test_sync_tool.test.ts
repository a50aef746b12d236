import { describe, expect, it } from "vitest";
import { TestSyncHandler, testSyncToolFactory } from "../../../src/handlers/test_sync_tool/handler.js";
import { createTurnContext } from "../../../src/index.js";
import { callTool, fromFactory, functionCall, runtimeOf } from "../toolHarness.js";

const tools = fromFactory(testSyncToolFactory, { testSyncTool: true });
let ids = 0;
const barrierId = (): string => `barrier-${process.pid}-${++ids}`;

async function batch(calls: unknown[]) {
  const { runtime, events } = runtimeOf(tools);
  calls.forEach((args, i) => runtime.submit(functionCall("test_sync_tool", args, `c${i}`)));
  return { outcomes: await runtime.drainOutcomes(), events, runtime };
}

const outputOf = (o: { item: unknown }): unknown => (o.item as { output: unknown }).output;

describe("test_sync_tool", () => {
  it("is off unless testSyncTool is true", () => {
    expect(fromFactory(testSyncToolFactory)).toEqual([]);
    expect(tools.map((t) => [t.spec.type === "function" && t.spec.name, t.supportsParallel])).toEqual([
      ["test_sync_tool", true],
    ]);
  });

  it("opens a barrier only when every participant has arrived: calls in one batch overlap", async () => {
    const id = barrierId();
    const barrier = { id, participants: 3, timeout_ms: 5000 };
    const { outcomes } = await batch([{ barrier }, { sleep_before_ms: 5, barrier }, { barrier, sleep_after_ms: 5 }]);
    expect(outcomes.map(outputOf)).toEqual(["ok", "ok", "ok"]);
    expect(outcomes.every((o) => o.success)).toBe(true);
  });

  it("fails a barrier that times out, and withdraws the arrival that gave up", async () => {
    const id = barrierId();
    const lonely = await callTool(tools, "test_sync_tool", { barrier: { id, participants: 2, timeout_ms: 30 } });
    expect(lonely.success).toBe(false);
    expect(lonely.text).toBe("test_sync_tool barrier wait timed out");
    // Had the first arrival stayed, this one would open the barrier.
    const second = await callTool(tools, "test_sync_tool", { barrier: { id, participants: 2, timeout_ms: 30 } });
    expect(second.text).toBe("test_sync_tool barrier wait timed out");
  });

  it("rejects a participant count that differs from the waiting barrier's", async () => {
    const id = barrierId();
    const { outcomes } = await batch([
      { barrier: { id, participants: 2, timeout_ms: 5000 } },
      { barrier: { id, participants: 3 } },
      { barrier: { id, participants: 2, timeout_ms: 5000 } },
    ]);
    expect(outcomes.map(outputOf)).toEqual(["ok", `barrier ${id} already registered with 2 participants`, "ok"]);
  });

  it.each([
    [{ barrier: { id: "z", participants: 0 } }, "barrier participants must be greater than zero"],
    [{ barrier: { id: "z", participants: 1, timeout_ms: 0 } }, "barrier timeout must be greater than zero"],
  ])("rejects %j", async (args, message) => {
    const out = await callTool(tools, "test_sync_tool", args);
    expect(out.success).toBe(false);
    expect(out.text).toBe(message);
  });

  it("a single participant passes at once; sleeps alone answer ok", async () => {
    const out = await callTool(tools, "test_sync_tool", {
      sleep_before_ms: 1,
      barrier: { id: barrierId(), participants: 1 },
      sleep_after_ms: 1,
    });
    expect(out.text).toBe("ok");
  });

  it("stops sleeping when the call is aborted", async () => {
    const controller = new AbortController();
    const running = new TestSyncHandler().handle({
      callId: "sleepy",
      toolName: "test_sync_tool",
      payload: { kind: "function", arguments: "" },
      args: { sleep_before_ms: 60_000 },
      signal: controller.signal,
      turn: createTurnContext(),
      context: undefined,
    });
    controller.abort(new Error("stop"));
    await expect(running).rejects.toMatchObject({ name: "AbortError" });
  });
});
