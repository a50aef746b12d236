import { describe, expect, it } from "vitest";
import {
  createTurnContext,
  ToolCallRuntime,
  ToolRegistryBuilder,
  ToolRouter,
  type ToolEvent,
  type ToolHandler,
} from "../../src/index.js";
import { deferred, fc, text } from "../support/harness.js";

const spec = (name: string) => ({
  type: "function" as const,
  name,
  description: name,
  parameters: { type: "object", properties: {} },
});

/** A handler that never settles on its own and ignores its signal (it only records it). */
function hung(seen: { reason?: unknown }, settle?: Promise<void>): ToolHandler {
  return {
    kind: "function",
    async handle(inv) {
      inv.signal.addEventListener("abort", () => (seen.reason = inv.signal.reason), { once: true });
      await (settle ?? new Promise(() => undefined));
      return { kind: "function", body: "late" };
    },
  };
}

/** A runtime over `first` (with its own deadline when given) and `next`, recording events. */
function runtimeOf(
  first: { name: string; handler: ToolHandler; timeoutMs?: number },
  opts: { toolTimeoutMs?: number; leakGraceMs: number },
): { runtime: ToolCallRuntime; events: ToolEvent[] } {
  const { specs, registry } = new ToolRegistryBuilder()
    .pushSpec(spec(first.name), first.timeoutMs === undefined ? {} : { timeoutMs: first.timeoutMs })
    .registerHandler(first.name, first.handler)
    .pushSpec(spec("next"))
    .registerHandler("next", quick)
    .build();
  const events: ToolEvent[] = [];
  const turn = createTurnContext({
    onEvent: (e) => {
      events.push(e);
    },
  });
  return { runtime: new ToolCallRuntime(new ToolRouter(registry, specs), turn, opts), events };
}

const quick: ToolHandler = { kind: "function", handle: async () => ({ kind: "function", body: "next ran" }) };

describe("deadlines (DESIGN section 11)", () => {
  it("answers a hung call at its spec's deadline; the next exclusive call runs only after leakGraceMs, reported as leaked", async () => {
    const seen: { reason?: unknown } = {};
    const { runtime, events } = runtimeOf({ name: "hang", handler: hung(seen), timeoutMs: 100 }, { leakGraceMs: 150 });
    runtime.submit(fc("h", "hang"));
    runtime.submit(fc("n", "next"));
    const outcomes = await runtime.drainOutcomes();
    expect(outcomes.map((o) => text(o.item))).toEqual(["tool hang timed out after 0.1s", "next ran"]);
    expect(outcomes[0]).toMatchObject({ success: false, aborted: false });
    expect((seen.reason as Error).name).toBe("TimeoutError");
    // Event order proves the slot: the hung call was answered, then leaked, and only then did the next call begin.
    const order = events
      .filter((e) => ["tool_call_end", "tool_call_leaked", "tool_call_begin"].includes(e.type))
      .map((e) => `${e.type}:${e.callId}`);
    expect(order).toEqual([
      "tool_call_begin:h",
      "tool_call_end:h",
      "tool_call_leaked:h",
      "tool_call_begin:n",
      "tool_call_end:n",
    ]);
  });

  it("a handler settling after its deadline but within the grace releases its slot then, without a leak", async () => {
    const seen: { reason?: unknown } = {};
    const settle = deferred();
    const slow: ToolHandler = {
      kind: "function",
      async handle(inv) {
        inv.signal.addEventListener(
          "abort",
          () =>
            setImmediate(() => {
              settle.resolve();
            }),
          { once: true },
        );
        return hung(seen, settle.promise).handle(inv);
      },
    };
    const { runtime, events } = runtimeOf({ name: "slow", handler: slow }, { toolTimeoutMs: 50, leakGraceMs: 60_000 });
    runtime.submit(fc("s", "slow"));
    runtime.submit(fc("n", "next"));
    const outcomes = await runtime.drainOutcomes();
    expect(outcomes.map((o) => text(o.item))).toEqual(["tool slow timed out after 0.1s", "next ran"]);
    expect(events.some((e) => e.type === "tool_call_leaked")).toBe(false);
  });

  it("rejects a deadline that is not a positive number", () => {
    const { specs, registry } = new ToolRegistryBuilder().build();
    const router = new ToolRouter(registry, specs);
    expect(() => new ToolCallRuntime(router, createTurnContext(), { toolTimeoutMs: 0 })).toThrow(
      /toolTimeoutMs must be a positive number/,
    );
    expect(() => new ToolRegistryBuilder().pushSpec(spec("x"), { timeoutMs: -1 })).toThrow(
      /timeoutMs of x must be a positive number/,
    );
  });
});
