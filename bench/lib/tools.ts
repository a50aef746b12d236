/** The tools every scenario runs: the same plain functions, bare and behind our runtime. */
import { setTimeout as sleep } from "node:timers/promises";
import type {
  FunctionCallItem,
  FunctionToolSpec,
  ToolCallRuntime,
  ToolHandler,
  ToolRouter,
  TurnContext,
} from "../../src/index.js";
import { lib } from "./lib.js";

/** The no-op tool as a bare function: what a caller without any runtime would await. */
export async function noop(args: { n: number }): Promise<string> {
  return args.n >= 0 ? "ok" : "negative";
}

/** Waits `ms` on a timer, like a handler waiting on I/O. */
export async function wait(args: { ms: number }): Promise<string> {
  await sleep(args.ms);
  return "ok";
}

const schema = (prop: string): FunctionToolSpec["parameters"] => ({
  type: "object",
  properties: { [prop]: { type: "integer", minimum: 0 } },
  required: [prop],
  additionalProperties: false,
});

export const NOOP_SPEC: FunctionToolSpec = {
  type: "function",
  name: "noop",
  description: "Does nothing.",
  parameters: schema("n"),
};
const WAIT_SPEC: FunctionToolSpec = {
  type: "function",
  name: "wait",
  description: "Waits ms milliseconds.",
  parameters: schema("ms"),
};

/** Wraps a bare function as a handler, so both sides run the very same code. */
export function handlerOf(fn: (args: never) => Promise<string>): ToolHandler {
  return { kind: "function", handle: async (inv) => ({ kind: "function", body: await fn(inv.args as never) }) };
}

/**
 * The benchmarks repeat one call with one result on purpose, which loop detection (DESIGN
 * section 18) would answer instead of running after five: it is off in their routers. A
 * build from before it ignores the option.
 */
export const NO_LOOP_DETECTION = { loopLimit: 0 };

/** A router with `noop` and `wait`, both parallel-safe. */
export function benchRouter(): ToolRouter {
  const { specs, registry } = new lib.ToolRegistryBuilder()
    .pushSpecWithParallelSupport(NOOP_SPEC, true)
    .registerHandler("noop", handlerOf(noop))
    .pushSpecWithParallelSupport(WAIT_SPEC, true)
    .registerHandler("wait", handlerOf(wait))
    .build();
  return new lib.ToolRouter(registry, specs, undefined, NO_LOOP_DETECTION);
}

export function functionCall(callId: string, name: string, args: unknown): FunctionCallItem {
  return { type: "function_call", call_id: callId, name, arguments: JSON.stringify(args) };
}

/** `count` calls of one tool with distinct ids (prefix keeps batches of one runtime apart). */
export function batch(
  prefix: string,
  count: number,
  name: "noop" | "wait",
  args: Record<string, number>,
): FunctionCallItem[] {
  return Array.from({ length: count }, (_, i) => functionCall(`${prefix}${i}`, name, args));
}

export function benchTurn(): TurnContext {
  return lib.createTurnContext();
}

/** A fresh runtime over `router` (one per turn, as an agent loop would make). */
export function benchRuntime(router: ToolRouter, maxConcurrency = 16): ToolCallRuntime {
  return new lib.ToolCallRuntime(router, benchTurn(), { maxConcurrency });
}

/** Submits a batch and drains it; throws if any call failed, so a broken run never looks fast. */
export async function runBatch(runtime: ToolCallRuntime, items: readonly FunctionCallItem[]): Promise<void> {
  for (const item of items) runtime.submit(item);
  const outcomes = await runtime.drainOutcomes();
  assertAllSucceeded(outcomes, items.length);
}

export function assertAllSucceeded(
  outcomes: ReadonlyArray<{ success: boolean; callId: string; item: unknown }>,
  expected: number,
): void {
  if (outcomes.length !== expected) throw new Error(`expected ${expected} outputs, got ${outcomes.length}`);
  const failed = outcomes.find((o) => !o.success);
  if (failed) throw new Error(`call ${failed.callId} failed: ${JSON.stringify(failed.item)}`);
}

/** The bare baseline for a batch: `Promise.all` of the functions on the parsed arguments. */
export async function bareBatch(
  items: readonly FunctionCallItem[],
  fn: (args: never) => Promise<string>,
): Promise<void> {
  await Promise.all(items.map((item) => fn(JSON.parse(item.arguments) as never)));
}
