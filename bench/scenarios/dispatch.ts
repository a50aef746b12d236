/** Scenario 1: per-call cost of sequential no-op calls, runtime versus a bare await. */
import { benchRouter, benchRuntime, benchTurn, batch, noop } from "../lib/tools.js";
import { timeMs } from "../lib/stats.js";
import { metric } from "../lib/report.js";
import { measure, medianOf, type Scenario } from "../lib/scenario.js";

export const dispatch: Scenario = {
  id: "dispatch",
  title: "Dispatch overhead: sequential no-op calls",
  async run(ctx) {
    const calls = ctx.quick ? 10_000 : 100_000;
    const router = benchRouter();
    const turn = benchTurn();
    const items = batch("c", calls, "noop", { n: 1 });
    const perCall = (ms: number): number => (ms * 1000) / calls;
    let failures = 0;

    const variants = await measure(
      [
        {
          id: "bare",
          label: "bare await handler(JSON.parse(args))",
          run: async () =>
            perCall(
              await timeMs(async () => {
                for (const item of items) await noop(JSON.parse(item.arguments) as { n: number });
              }),
            ),
        },
        {
          id: "submit",
          label: "submit + drain (sequential)",
          run: async () => {
            // A fresh runtime per repetition: call ids are unique per runtime.
            const runtime = benchRuntime(router);
            return perCall(
              await timeMs(async () => {
                for (const item of items) {
                  runtime.submit(item);
                  const [outcome] = await runtime.drainOutcomes();
                  if (!outcome?.success) failures++;
                }
              }),
            );
          },
        },
        {
          id: "handle",
          label: "handleToolCall (sequential)",
          run: async () => {
            const runtime = benchRuntime(router);
            return perCall(
              await timeMs(async () => {
                for (const item of items) {
                  const call = router.buildToolCall(item);
                  if (!call || !(await runtime.handleToolCall(call)).success) failures++;
                }
              }),
            );
          },
        },
        {
          id: "dispatch",
          label: "router.dispatch only (no lock)",
          run: async () => {
            const signal = new AbortController().signal;
            return perCall(
              await timeMs(async () => {
                for (const item of items) {
                  const call = router.buildToolCall(item);
                  if (!call || !(await router.dispatch(call, { turn, signal })).success) failures++;
                }
              }),
            );
          },
        },
      ],
      ctx.reps,
      "µs/call",
    );
    if (failures > 0) throw new Error(`${failures} no-op calls failed`);

    const bare = medianOf(variants, "bare");
    const submit = medianOf(variants, "submit");
    const handle = medianOf(variants, "handle");
    return {
      status: "ok",
      note: `${calls} calls per sample`,
      variants,
      metrics: [
        metric("submitOverheadUs", "overhead submit+drain − bare", submit - bare, "µs/call", {
          op: "<=",
          value: 3,
          description: "dispatch overhead (submit/drain) at most 3 µs per call",
        }),
        metric("handleOverheadUs", "overhead handleToolCall − bare", handle - bare, "µs/call", {
          op: "<=",
          value: 3,
          description: "dispatch overhead (handleToolCall) at most 3 µs per call",
        }),
        metric("submitRatio", "ratio submit+drain / bare", submit / bare, "×"),
      ],
    };
  },
};
