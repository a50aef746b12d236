/**
 * Scenario 7: memory. Heap and RSS growth while 10 000 calls are queued behind blocked
 * handlers (versus 10 000 bare pending handler promises), and the bytes retained after a
 * command printed 50 MB through the shell handler (versus raw spawn keeping every chunk).
 */
import { lib } from "../lib/lib.js";
import { metric } from "../lib/report.js";
import { measure, medianOf, type Scenario } from "../lib/scenario.js";
import { rawSpawn } from "../lib/spawn.js";
import { NO_LOOP_DETECTION, NOOP_SPEC, batch } from "../lib/tools.js";

const QUEUED = 10_000;
const BIG_BYTES = 50_000_000;
const BIG_ARGV = ["bash", "-c", `yes 0123456789abcdef | head -c ${BIG_BYTES}`];
const MB = 1024 * 1024;

/**
 * Full collections with a macrotask between them: freed Buffers give their external memory
 * back only when their finalizers run, after the collection that found them dead.
 */
async function collect(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("the memory scenario needs node --expose-gc (run it through `npm run bench`)");
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Heap (JS heap plus off-heap buffers) and RSS after full collections. */
async function settled(): Promise<{ heap: number; rss: number }> {
  await collect();
  const m = process.memoryUsage();
  return { heap: m.heapUsed + m.external, rss: m.rss };
}

/** Runs `fn` while sampling RSS every 2 ms; returns its result and the peak RSS growth. */
async function peakRss<T>(fn: () => Promise<T>): Promise<{ result: T; peak: number }> {
  const base = process.memoryUsage.rss();
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 2);
  try {
    const result = await fn();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { result, peak: peak - base };
  } finally {
    clearInterval(timer);
  }
}

/** A handler every call of which waits for `release()`. */
function gate(): { wait: () => Promise<string>; release: () => void } {
  let release!: () => void;
  const opened = new Promise<void>((resolve) => (release = resolve));
  return { wait: async () => (await opened, "ok"), release };
}

/** Bytes per queued call, measured while the calls are held, after a collection. */
async function queuedGrowth(
  hold: (wait: () => Promise<string>) => Promise<() => Promise<void>>,
): Promise<{ heap: number; rss: number }> {
  const g = gate();
  const before = await settled();
  const finish = await hold(g.wait);
  const during = await settled();
  g.release();
  await finish();
  return { heap: (during.heap - before.heap) / QUEUED, rss: (during.rss - before.rss) / QUEUED };
}

export const memory: Scenario = {
  id: "memory",
  title: `Memory: ${QUEUED} queued calls; a command printing 50 MB`,
  async run(ctx) {
    const items = batch("q", QUEUED, "noop", { n: 1 });
    let current = gate().wait;
    const { specs, registry } = new lib.ToolRegistryBuilder()
      .pushSpecWithParallelSupport(NOOP_SPEC, true)
      .registerHandler("noop", { kind: "function", handle: async () => ({ kind: "function", body: await current() }) })
      .build();
    const router = new lib.ToolRouter(registry, specs, undefined, NO_LOOP_DETECTION);
    const shellRouter = await lib.createToolRouter({ ...NO_LOOP_DETECTION, shell: "shell" });
    // Side measurements taken during the measured runs, reported as metrics.
    const rssPerCall: Record<string, number[]> = { ours: [], bare: [] };
    const peakMiB: Record<string, number[]> = { shell50: [], raw50: [] };

    const queued = await measure(
      [
        {
          id: "ours",
          label: `runtime, ${QUEUED} calls queued (16 running, rest waiting for the lock)`,
          run: async () => {
            const growth = await queuedGrowth(async (wait) => {
              current = wait;
              const runtime = new lib.ToolCallRuntime(router, lib.createTurnContext());
              for (const item of items) runtime.submit(item);
              await new Promise((r) => setImmediate(r));
              return async () => {
                await runtime.drain();
              };
            });
            rssPerCall["ours"]?.push(growth.rss);
            return growth.heap;
          },
        },
        {
          id: "bare",
          label: `bare, ${QUEUED} pending handler promises`,
          run: async () => {
            const growth = await queuedGrowth(async (wait) => {
              const pending = items.map((item) => (JSON.parse(item.arguments) as unknown, wait()));
              return async () => {
                await Promise.all(pending);
              };
            });
            rssPerCall["bare"]?.push(growth.rss);
            return growth.heap;
          },
        },
      ],
      ctx.reps,
      "B/call heap",
    );

    const big = ctx.quick ? { warmup: 0, reps: 1 } : { warmup: 1, reps: 3 };
    const retained = await measure(
      [
        {
          id: "shell50",
          label: "shell handler, 50 MB printed: retained with the outcome",
          run: async () => {
            const runtime = new lib.ToolCallRuntime(shellRouter, lib.createTurnContext());
            const before = await settled();
            const call = shellRouter.buildToolCall({
              type: "function_call",
              call_id: "big",
              name: "shell",
              arguments: JSON.stringify({ command: BIG_ARGV }),
            });
            if (!call) throw new Error("no shell call");
            const { result: outcome, peak } = await peakRss(() => runtime.handleToolCall(call));
            const after = await settled();
            peakMiB["shell50"]?.push(peak / MB);
            if (!outcome.success)
              throw new Error(`50 MB command failed: ${JSON.stringify(outcome.item).slice(0, 200)}`);
            return (after.heap - before.heap) / MB;
          },
        },
        {
          id: "raw50",
          label: "raw spawn, 50 MB printed: retained chunks",
          run: async () => {
            const before = await settled();
            const { result, peak } = await peakRss(() => rawSpawn(BIG_ARGV));
            const after = await settled();
            peakMiB["raw50"]?.push(peak / MB);
            if (result.chunks.reduce((n, c) => n + c.length, 0) !== BIG_BYTES) throw new Error("raw spawn lost output");
            return (after.heap - before.heap) / MB;
          },
        },
      ],
      big,
      "MiB",
    );
    const median = (xs: number[] | undefined): number =>
      [...(xs ?? [0])].sort((a, b) => a - b)[(xs?.length ?? 1) >> 1] ?? 0;
    return {
      status: "ok",
      note: "heap = heapUsed + external after forced GCs; the runtime holds every queued call's record and item",
      variants: [...queued, ...retained],
      metrics: [
        metric("oursRssPerCall", "runtime RSS growth per queued call", median(rssPerCall["ours"]), "B/call"),
        metric("bareRssPerCall", "bare RSS growth per pending promise", median(rssPerCall["bare"]), "B/call"),
        metric(
          "queuedHeapMiB",
          `runtime heap growth for ${QUEUED} queued calls`,
          (medianOf(queued, "ours") * QUEUED) / MB,
          "MiB",
        ),
        metric("shellPeakMiB", "shell handler, 50 MB printed: peak RSS growth", median(peakMiB["shell50"]), "MiB"),
        metric("rawPeakMiB", "raw spawn, 50 MB printed: peak RSS growth", median(peakMiB["raw50"]), "MiB"),
      ],
    };
  },
};
