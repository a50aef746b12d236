/**
 * Scenario 3: a seeded trace of shared and exclusive calls. The runtime's makespan is set
 * against the optimal FIFO shared/exclusive schedule computed from the trace, and against a
 * bare stage-by-stage executor running the same timers; every start is checked for ordering
 * and exclusivity violations.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { ToolHandler, ToolRouter } from "../../src/index.js";
import { lib } from "../lib/lib.js";
import { seededRandom, timeMs } from "../lib/stats.js";
import { metric } from "../lib/report.js";
import { measure, medianOf, type Scenario } from "../lib/scenario.js";
import { NO_LOOP_DETECTION, functionCall } from "../lib/tools.js";

export interface TraceCall {
  exclusive: boolean;
  ms: number;
}

const SEED = 20_240_601;
const CONCURRENCY = 16;

/** 70 % shared, 30 % exclusive, 1–20 ms each. */
function makeTrace(seed: number, length: number): TraceCall[] {
  const random = seededRandom(seed);
  return Array.from({ length }, () => ({ exclusive: random() >= 0.7, ms: 1 + Math.floor(random() * 20) }));
}

/**
 * The makespan of the best schedule that keeps FIFO lock semantics: calls start in trace
 * order, an exclusive call waits for every earlier call and blocks every later one, and at
 * most `cap` shared calls run at once.
 */
function optimalFifoMakespan(trace: readonly TraceCall[], cap: number): number {
  const ends: number[] = [];
  let lastStart = 0;
  let barrier = 0; // end of the latest exclusive call
  let allEnd = 0;
  for (const call of trace) {
    let start = Math.max(lastStart, call.exclusive ? allEnd : barrier);
    if (!call.exclusive) {
      // Wait for a free slot: the (running - cap + 1)-th earliest end among calls still running.
      const running = ends.filter((e) => e > start).sort((a, b) => a - b);
      if (running.length >= cap) start = running[running.length - cap] as number;
    }
    const end = start + call.ms;
    ends.push(end);
    lastStart = start;
    allEnd = Math.max(allEnd, end);
    if (call.exclusive) barrier = end;
  }
  return allEnd;
}

/** Checks invariants 2 and 3 at every start; counts what it sees broken. */
class ScheduleChecker {
  violations = 0;
  private running = 0;
  private exclusiveRunning = false;
  private readonly finished: boolean[];

  constructor(private readonly trace: readonly TraceCall[]) {
    this.finished = trace.map(() => false);
  }

  start(seq: number): void {
    const me = this.trace[seq] as TraceCall;
    if (this.exclusiveRunning || (me.exclusive && this.running > 0)) this.violations++;
    for (let j = 0; j < seq; j++) {
      if (!this.finished[j] && (me.exclusive || (this.trace[j] as TraceCall).exclusive)) {
        this.violations++;
        break;
      }
    }
    this.running++;
    if (me.exclusive) this.exclusiveRunning = true;
  }

  end(seq: number): void {
    this.running--;
    if ((this.trace[seq] as TraceCall).exclusive) this.exclusiveRunning = false;
    this.finished[seq] = true;
  }
}

function traceRouter(checker: { current: ScheduleChecker | undefined }): ToolRouter {
  const handler: ToolHandler = {
    kind: "function",
    async handle(inv) {
      const { seq, ms } = inv.args as { seq: number; ms: number };
      checker.current?.start(seq);
      await sleep(ms);
      checker.current?.end(seq);
      return { kind: "function", body: "ok" };
    },
  };
  const parameters = {
    type: "object",
    properties: { seq: { type: "integer", minimum: 0 }, ms: { type: "integer", minimum: 0 } },
    required: ["seq", "ms"],
    additionalProperties: false,
  };
  const { specs, registry } = new lib.ToolRegistryBuilder()
    .pushSpecWithParallelSupport(
      { type: "function", name: "shared_sleep", description: "Sleeps, shared.", parameters },
      true,
    )
    .registerHandler("shared_sleep", handler)
    .pushSpec({ type: "function", name: "exclusive_sleep", description: "Sleeps, exclusive.", parameters })
    .registerHandler("exclusive_sleep", handler)
    .build();
  return new lib.ToolRouter(registry, specs, undefined, NO_LOOP_DETECTION);
}

/** The bare reference: runs of shared calls as `Promise.all` chunks of `cap`, exclusives alone. */
async function bareStages(trace: readonly TraceCall[], cap: number): Promise<void> {
  let group: Array<() => Promise<unknown>> = [];
  const flush = async (): Promise<void> => {
    for (let i = 0; i < group.length; i += cap) await Promise.all(group.slice(i, i + cap).map((f) => f()));
    group = [];
  };
  for (const call of trace) {
    if (call.exclusive) {
      await flush();
      await sleep(call.ms);
    } else {
      group.push(() => sleep(call.ms));
    }
  }
  await flush();
}

export const mixed: Scenario = {
  id: "mixed",
  title: "Mixed schedule: seeded 70 % shared / 30 % exclusive trace, 1-20 ms each",
  async run(ctx) {
    const length = ctx.quick ? 100 : 500;
    const trace = makeTrace(SEED, length);
    const items = trace.map((call, seq) =>
      functionCall(`m${seq}`, call.exclusive ? "exclusive_sleep" : "shared_sleep", { seq, ms: call.ms }),
    );
    const holder: { current: ScheduleChecker | undefined } = { current: undefined };
    const router = traceRouter(holder);
    let violations = 0;
    let failures = 0;

    const variants = await measure(
      [
        {
          id: "ours",
          label: `runtime, ${length} calls`,
          run: async () => {
            const checker = new ScheduleChecker(trace);
            holder.current = checker;
            const runtime = new lib.ToolCallRuntime(router, lib.createTurnContext(), { maxConcurrency: CONCURRENCY });
            const ms = await timeMs(async () => {
              for (const item of items) runtime.submit(item);
              const outcomes = await runtime.drainOutcomes();
              // Invariant 1: one output per call, in submission order.
              outcomes.forEach((o, i) => {
                if (o.callId !== `m${i}`) violations++;
                if (!o.success) failures++;
              });
              if (outcomes.length !== length) violations++;
            });
            violations += checker.violations;
            return ms;
          },
        },
        {
          id: "bare",
          label: `bare stage executor, ${length} calls`,
          run: () => timeMs(() => bareStages(trace, CONCURRENCY)),
        },
      ],
      ctx.reps,
      "ms",
    );
    if (failures > 0) throw new Error(`${failures} trace calls failed`);
    const optimal = optimalFifoMakespan(trace, CONCURRENCY);
    const exclusives = trace.filter((c) => c.exclusive).length;
    return {
      status: "ok",
      note: `seed ${SEED}, ${exclusives} exclusive of ${length}, maxConcurrency ${CONCURRENCY}; optimal FIFO makespan ${optimal} ms`,
      variants,
      metrics: [
        metric("optimalMs", "optimal FIFO makespan (from trace)", optimal, "ms"),
        metric("ratio", "runtime / optimal", medianOf(variants, "ours") / optimal, "×", {
          op: "<=",
          value: 1.05,
          description: "mixed schedule within 1.05 of the optimal FIFO schedule",
        }),
        metric("bareRatio", "bare stage executor / optimal", medianOf(variants, "bare") / optimal, "×"),
        metric("violations", "ordering or exclusivity violations", violations, "count", {
          op: "==",
          value: 0,
          description: "0 ordering or exclusivity violations",
        }),
      ],
    };
  },
};
