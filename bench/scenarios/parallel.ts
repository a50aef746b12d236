/** Scenario 2: makespan of 100-call batches, runtime versus the bare `Promise.all`. */
import { bareBatch, batch, benchRouter, benchRuntime, noop, runBatch, wait } from "../lib/tools.js";
import { meanOver } from "../lib/stats.js";
import { metric } from "../lib/report.js";
import { measure, medianOf, type Scenario } from "../lib/scenario.js";

export const BATCH = 100;
/** Enough slots for the whole batch: the comparison is with an unbounded `Promise.all`. */
export const BATCH_CONCURRENCY = 128;
const WAIT_MS = 20;

export const parallel: Scenario = {
  id: "parallel",
  title: `Parallel batches: ${BATCH} no-op calls and ${BATCH} calls waiting ${WAIT_MS} ms`,
  async run(ctx) {
    const router = benchRouter();
    // No-op batches take microseconds: a sample is the mean of many, so timer noise averages out.
    const sampleMs = ctx.quick ? 20 : 100;
    const noopItems = batch("n", BATCH, "noop", { n: 1 });
    const waitItems = batch("w", BATCH, "wait", { ms: WAIT_MS });
    const ourBatch = (items: typeof noopItems, minMs: number): Promise<number> =>
      meanOver(() => runBatch(benchRuntime(router, BATCH_CONCURRENCY), items), minMs, 10_000);
    const bare = (items: typeof noopItems, fn: typeof noop | typeof wait, minMs: number): Promise<number> =>
      meanOver(() => bareBatch(items, fn), minMs, 10_000);

    const noopVariants = await measure(
      [
        { id: "bareNoop", label: `bare Promise.all, ${BATCH} no-op`, run: () => bare(noopItems, noop, sampleMs) },
        { id: "oursNoop", label: `runtime, ${BATCH} no-op`, run: () => ourBatch(noopItems, sampleMs) },
      ],
      ctx.reps,
      "ms/batch",
    );
    const waitVariants = await measure(
      [
        { id: "bareWait", label: `bare Promise.all, ${BATCH} × ${WAIT_MS} ms`, run: () => bare(waitItems, wait, 0) },
        { id: "oursWait", label: `runtime, ${BATCH} × ${WAIT_MS} ms`, run: () => ourBatch(waitItems, 0) },
      ],
      ctx.reps,
      "ms/batch",
    );
    const variants = [...noopVariants, ...waitVariants];
    const noopRatio = medianOf(variants, "oursNoop") / medianOf(variants, "bareNoop");
    const waitRatio = medianOf(variants, "oursWait") / medianOf(variants, "bareWait");
    const perCallUs = ((medianOf(variants, "oursNoop") - medianOf(variants, "bareNoop")) * 1000) / BATCH;
    return {
      status: "ok",
      note: `maxConcurrency ${BATCH_CONCURRENCY}; fresh runtime per batch; a no-op sample averages batches over ${sampleMs} ms`,
      variants,
      metrics: [
        metric("noopOverheadUs", "no-op batch overhead per call", perCallUs, "µs/call"),
        metric("noopRatio", "no-op batch makespan ratio", noopRatio, "×"),
        metric("waitRatio", `${WAIT_MS} ms batch makespan ratio`, waitRatio, "×", {
          op: "<=",
          value: 1.05,
          description: `parallel ${WAIT_MS} ms batch makespan within 1.05 of bare Promise.all`,
        }),
      ],
    };
  },
};
