/**
 * Scenario: how a turn's per-call cost grows with its size (100 → 100 000 no-op calls, submitted
 * at once and drained once, default `maxConcurrency`, so all but 16 wait in the lock's queue), set
 * against `Promise.all` of as many bare calls, and the heap each call holds while it waits.
 */
import { lib } from "../lib/lib.js";
import { metric, type Metric, type VariantResult } from "../lib/report.js";
import {
  QUEUED,
  QUICK_SCALING_SIZES,
  SCALING_SIZES,
  barePerCallUs,
  scalingSubject,
  turnItems,
} from "../lib/scaling.js";
import { measure, medianOf, type Scenario } from "../lib/scenario.js";

/** What the ratio of a size's per-call cost to the 100-call cost may be, where the issue set one. */
const RATIO_TARGETS: Partial<Record<number, number>> = { 10_000: 1.8, 100_000: 3 };
const HEAP_TARGET_BYTES = 500;

export const scaling: Scenario = {
  id: "scaling",
  title: "Scaling: per-call cost of one turn of 100 → 100 000 calls; heap per queued call",
  async run(ctx) {
    const sizes = ctx.quick ? QUICK_SCALING_SIZES : SCALING_SIZES;
    const subject = scalingSubject(lib);
    const turns = turnItems(sizes);
    // Small turns take microseconds: a sample averages turns over this long; a 10 000-call or larger one is a sample by itself.
    const sampleMs = ctx.quick ? 20 : 100;
    const minMs = (n: number): number => (n < 10_000 ? sampleMs : 0);
    // One block of repetitions per size (see lib/scaling.ts), our runtime and its baseline interleaved.
    const perCall: VariantResult[] = [];
    for (const n of sizes) {
      const items = turns.get(n)!;
      const block = await measure(
        [
          { id: `ours${n}`, label: `runtime, turn of ${n}`, run: () => subject.perCallUs(items, minMs(n)) },
          { id: `bare${n}`, label: `bare Promise.all of ${n}`, run: () => barePerCallUs(items, minMs(n)) },
        ],
        ctx.reps,
        "µs/call",
      );
      perCall.push(...block);
    }
    // After the turns: its forced collections would slow the turns measured next.
    const heap = await measure(
      [
        {
          id: "queuedHeap",
          label: `runtime, ${QUEUED} calls queued behind an exclusive call`,
          run: () => subject.queuedHeapBytes(),
        },
      ],
      ctx.reps,
      "B/call heap",
    );

    const reference = sizes[0];
    const metrics: Metric[] = sizes.slice(1).flatMap((n) => {
      const target = RATIO_TARGETS[n];
      const label = `per-call cost, turn of ${n} / turn of ${reference}`;
      return [
        metric(
          `ratio${n}`,
          label,
          medianOf(perCall, `ours${n}`) / medianOf(perCall, `ours${reference}`),
          "×",
          target === undefined
            ? undefined
            : { op: "<=", value: target, description: `a ${n}-call turn costs at most ${target}× per call` },
        ),
        metric(
          `bareRatio${n}`,
          `bare ${label}`,
          medianOf(perCall, `bare${n}`) / medianOf(perCall, `bare${reference}`),
          "×",
        ),
      ];
    });
    metrics.push(
      metric("queuedHeapBytes", "heap per queued call", medianOf(heap, "queuedHeap"), "B/call", {
        op: "<=",
        value: HEAP_TARGET_BYTES,
        description: `at most ${HEAP_TARGET_BYTES} B of heap per queued call`,
      }),
    );
    return {
      status: "ok",
      note: `default maxConcurrency (16); fresh runtime per turn; turns under 10 000 calls averaged over ${sampleMs} ms per sample; heap = heapUsed after forced GCs`,
      variants: [...perCall, ...heap],
      metrics,
    };
  },
};
