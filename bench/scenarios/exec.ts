/** Scenario 5: 20 parallel `true` commands through the shell handler versus raw `child_process.spawn`. */
import { lib } from "../lib/lib.js";
import { metric } from "../lib/report.js";
import { measure, medianOf, type Scenario } from "../lib/scenario.js";
import { rawSpawn } from "../lib/spawn.js";
import { meanOver } from "../lib/stats.js";
import { assertAllSucceeded, functionCall } from "../lib/tools.js";

const COMMANDS = 20;
const ARGV = ["true"];

export const exec: Scenario = {
  id: "exec",
  title: `Exec: ${COMMANDS} parallel \`true\` through the shell handler`,
  async run(ctx) {
    const router = await lib.createToolRouter({ shell: "shell" });
    const items = Array.from({ length: COMMANDS }, (_, i) => functionCall(`e${i}`, "shell", { command: ARGV }));
    // Enough rounds per sample that spawn jitter averages out.
    const rounds = ctx.quick ? 3 : 10;
    const repeat = (fn: () => Promise<void>) => (): Promise<number> => meanOver(fn, Infinity, rounds);
    const variants = await measure(
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
    return {
      status: "ok",
      note: "shell handler spawns each command in its own process group (detached) and formats the output; raw spawn does neither",
      variants,
      metrics: [
        metric("ratio", "shell handler / raw spawn", medianOf(variants, "ours") / medianOf(variants, "raw"), "×", {
          op: "<=",
          value: 1.1,
          description: "exec overhead within 1.10 of raw spawn",
        }),
      ],
    };
  },
};
