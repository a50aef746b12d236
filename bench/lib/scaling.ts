/**
 * How a turn's cost grows with its size: per-call cost of one turn of 100 → 100 000 no-op
 * calls (submit all, drain once, default `maxConcurrency`, so all but 16 wait in the lock's
 * queue), and the heap each queued call holds. Takes the library as a parameter so that
 * `compare.ts` can run it on two builds interleaved, and the `scaling` scenario on the current one.
 *
 * Each size is measured in its own block of repetitions: a 100 000-call turn leaves over 100 MB
 * of garbage, and a 100-call sample that followed it would pay for collecting it. (Forcing a
 * collection before each sample is no cure: the turns right after a forced collection ran 2–6×
 * slower here.)
 */
import type * as Lib from "../../src/index.js";
import type { FunctionCallItem, ToolRouter } from "../../src/index.js";
import { meanOver } from "./stats.js";
import { NO_LOOP_DETECTION, NOOP_SPEC, assertAllSucceeded, bareBatch, batch, handlerOf, noop } from "./tools.js";

/** Calls per turn, smallest first: the first size is the reference the others are divided by. */
export const SCALING_SIZES = [100, 1_000, 10_000, 100_000] as const;
export const QUICK_SCALING_SIZES = [100, 1_000, 10_000] as const;
export const QUEUED = 10_000;

const BLOCK_SPEC = { ...NOOP_SPEC, name: "block", description: "Waits until the bench lets it go." };

export interface ScalingSubject {
  /** Microseconds per call of one turn of `items` (a mean over turns for small ones). */
  perCallUs(items: readonly FunctionCallItem[], minMs: number): Promise<number>;
  /** Heap bytes per call while `QUEUED` calls wait behind an exclusive call (needs --expose-gc). */
  queuedHeapBytes(): Promise<number>;
}

/** The items of one turn per size, built once: item creation is not part of a call's cost. */
export function turnItems(sizes: readonly number[]): Map<number, FunctionCallItem[]> {
  return new Map(sizes.map((n) => [n, batch("s", n, "noop", { n: 1 })]));
}

/** Full collections with a macrotask between them, so finalizers and weak cells settle too. */
async function collect(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("heap per queued call needs node --expose-gc");
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** `Promise.all` of as many bare no-op calls, per call, measured like `perCallUs`. */
export async function barePerCallUs(items: readonly FunctionCallItem[], minMs: number): Promise<number> {
  return ((await meanOver(() => bareBatch(items, noop), minMs, 10_000)) * 1000) / items.length;
}

export function scalingSubject(lib: typeof Lib): ScalingSubject {
  let opened: Promise<void> = Promise.resolve();
  const { specs, registry } = new lib.ToolRegistryBuilder()
    .pushSpecWithParallelSupport(NOOP_SPEC, true)
    .registerHandler("noop", handlerOf(noop))
    .pushSpecWithParallelSupport(BLOCK_SPEC, false)
    .registerHandler("block", {
      kind: "function",
      handle: async () => (await opened, { kind: "function", body: "ok" }),
    })
    .build();
  const router: ToolRouter = new lib.ToolRouter(registry, specs, undefined, NO_LOOP_DETECTION);
  const queuedItems = batch("q", QUEUED, "noop", { n: 1 });
  const blockItem: FunctionCallItem = { type: "function_call", call_id: "block", name: "block", arguments: '{"n":1}' };

  const turn = async (items: readonly FunctionCallItem[]): Promise<void> => {
    // A fresh runtime per turn (call ids are unique per runtime), default maxConcurrency.
    const runtime = new lib.ToolCallRuntime(router, lib.createTurnContext());
    for (const item of items) runtime.submit(item);
    assertAllSucceeded(await runtime.drainOutcomes(), items.length);
  };

  return {
    perCallUs: async (items, minMs) => ((await meanOver(() => turn(items), minMs, 10_000)) * 1000) / items.length,
    async queuedHeapBytes() {
      let open!: () => void;
      opened = new Promise((resolve) => (open = resolve));
      const runtime = new lib.ToolCallRuntime(router, lib.createTurnContext());
      await collect();
      const before = process.memoryUsage().heapUsed;
      runtime.submit(blockItem);
      for (const item of queuedItems) runtime.submit(item);
      await new Promise((resolve) => setImmediate(resolve));
      await collect();
      const during = process.memoryUsage().heapUsed;
      open();
      assertAllSucceeded(await runtime.drainOutcomes(), QUEUED + 1);
      return (during - before) / QUEUED;
    },
  };
}
