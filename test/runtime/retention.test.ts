import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { expect, it } from "vitest";
import { createTurnContext, ToolCallRuntime, ToolRegistryBuilder, ToolRouter } from "../../src/index.js";

// A full collection on demand, without starting node with --expose-gc.
setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc") as () => void;

const { specs, registry } = new ToolRegistryBuilder()
  .pushSpecWithParallelSupport(
    { type: "function", name: "noop", description: "Does nothing.", parameters: { type: "object", properties: {} } },
    true,
  )
  .registerHandler("noop", { kind: "function", handle: () => Promise.resolve({ kind: "function", body: "ok" }) })
  .build();
const router = new ToolRouter(registry, specs);

/** Runs one turn of one call to its drain and lets it go; returns a weak reference to its output item. */
async function finishedTurn(): Promise<WeakRef<object>> {
  const runtime = new ToolCallRuntime(router, createTurnContext());
  runtime.submit({ type: "function_call", call_id: "c1", name: "noop", arguments: "{}" });
  const [outcome] = await runtime.drainOutcomes();
  expect(outcome?.success).toBe(true);
  return new WeakRef(outcome!.item);
}

it("a finished turn's runtime is not kept alive by the process-wide deadline timer", async () => {
  const item = await finishedTurn();
  // The runtime keeps every drained call's output (a repeated call id is answered with it):
  // once nothing holds the runtime, that output can be collected, long before any deadline.
  for (let i = 0; i < 10 && item.deref() !== undefined; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    collect();
  }
  expect(item.deref()).toBeUndefined();
});
