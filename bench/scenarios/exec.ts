/**
 * Scenario 5: `true` through the shell handler versus raw `child_process.spawn`: 20 in parallel,
 * and one at a time (the target), by wall time and by this process's CPU time per call.
 */
import type { FunctionCallItem, ToolCallRuntime } from "../../src/index.js";
import { lib } from "../lib/lib.js";
import { metric } from "../lib/report.js";
import { measure, medianOf, type Scenario } from "../lib/scenario.js";
import { rawSpawn } from "../lib/spawn.js";
import { cpuPerCall, meanOver } from "../lib/stats.js";
import { assertAllSucceeded, functionCall, NO_LOOP_DETECTION } from "../lib/tools.js";

const COMMANDS = 20;
const ARGV = ["true"];

async function rawTrue(): Promise<void> {
  if ((await rawSpawn(ARGV)).code !== 0) throw new Error("raw `true` failed");
}

export const exec: Scenario = {
  id: "exec",
  title: `Exec: \`true\` through the shell handler, ${COMMANDS} parallel and one at a time`,
  async run(ctx) {
    const router = await lib.createToolRouter({ ...NO_LOOP_DETECTION, shell: "shell" });
    const items = Array.from({ length: COMMANDS }, (_, i) => functionCall(`e${i}`, "shell", { command: ARGV }));
    // Enough rounds per sample that spawn jitter averages out.
    const rounds = ctx.quick ? 3 : 10;
    const repeat = (fn: () => Promise<void>) => (): Promise<number> => meanOver(fn, Infinity, rounds);
    const parallel = await measure(
      [
        {
          id: "raw",
          label: `raw child_process.spawn × ${COMMANDS}, Promise.all`,
          run: repeat(async () => {
            const results = await Promise.all(items.map(() => rawSpawn(ARGV)));
            if (results.some((r) => r.code !== 0)) throw new Error("raw `true` failed");
          }),
        },
        {
          id: "ours",
          label: `shell handler × ${COMMANDS}, submit + drain`,
          run: repeat(async () => {
            // maxConcurrency covers the batch, as Promise.all does.
            const runtime = new lib.ToolCallRuntime(router, lib.createTurnContext(), { maxConcurrency: COMMANDS });
            for (const item of items) runtime.submit(item);
            assertAllSucceeded(await runtime.drainOutcomes(), COMMANDS);
          }),
        },
      ],
      ctx.reps,
      "ms/batch",
    );

    // One command at a time: each sample is the mean of `sequential` calls, one runtime per
    // sample (a turn), each call submitted and drained before the next.
    const sequential = ctx.quick ? 10 : 40;
    let seq = 0;
    const item = (): FunctionCallItem => functionCall(`s${seq++}`, "shell", { command: ARGV });
    const oneByOne = async (rt: ToolCallRuntime): Promise<void> => {
      for (let i = 0; i < sequential; i++) {
        rt.submit(item());
        assertAllSucceeded(await rt.drainOutcomes(), 1);
      }
    };
    const ours = (): ToolCallRuntime => new lib.ToolCallRuntime(router, lib.createTurnContext());
    const rawInARow = async (): Promise<void> => {
      for (let i = 0; i < sequential; i++) await rawTrue();
    };
    const wallPerCall = (fn: () => Promise<void>) => async (): Promise<number> => {
      const start = performance.now();
      await fn();
      return ((performance.now() - start) * 1000) / sequential;
    };
    const cpu = (fn: () => Promise<void>) => (): Promise<number> => cpuPerCall(fn, sequential);
    const wall = await measure(
      [
        { id: "rawSeq", label: "raw child_process.spawn, one at a time: wall per call", run: wallPerCall(rawInARow) },
        {
          id: "oursSeq",
          label: "shell handler, submit + drain one at a time: wall per call",
          run: wallPerCall(() => oneByOne(ours())),
        },
      ],
      ctx.reps,
      "µs",
    );
    const cpuTime = await measure(
      [
        { id: "rawSeqCpu", label: "raw child_process.spawn, one at a time: CPU per call", run: cpu(rawInARow) },
        {
          id: "oursSeqCpu",
          label: "shell handler, submit + drain one at a time: CPU per call",
          run: cpu(() => oneByOne(ours())),
        },
      ],
      ctx.reps,
      "µs",
    );
    const variants = [...parallel, ...wall, ...cpuTime];
    return {
      status: "ok",
      note: "the shell handler checks the workdir and the program, filters the environment, spawns each command in its own process group (detached) tracked for the host's exit, and formats the output; raw spawn does none of that",
      variants,
      metrics: [
        metric("ratio", "shell handler / raw spawn", medianOf(variants, "ours") / medianOf(variants, "raw"), "×", {
          op: "<=",
          value: 1.1,
          description: "exec overhead within 1.10 of raw spawn",
        }),
        metric(
          "seqRatio",
          "shell handler / raw spawn, one at a time",
          medianOf(variants, "oursSeq") / medianOf(variants, "rawSeq"),
          "×",
          { op: "<=", value: 1.1, description: "sequential `true` through the handler within 1.10 of raw spawn" },
        ),
        metric(
          "seqCpuRatio",
          "shell handler / raw spawn, CPU per call, one at a time",
          medianOf(variants, "oursSeqCpu") / medianOf(variants, "rawSeqCpu"),
          "×",
        ),
        metric(
          "seqOverhead",
          "shell handler − raw spawn, wall per call, one at a time",
          medianOf(variants, "oursSeq") - medianOf(variants, "rawSeq"),
          "µs",
        ),
      ],
    };
  },
};
