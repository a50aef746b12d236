/**
 * Shell handler cost, run once by hand (`npx tsx bench/exec.ts`): median of 20 `true` through
 * the `shell` handler versus a raw `child_process.spawn`, and the peak bytes the handler
 * retains for a command printing 50 MB.
 */
import { createTurnContext } from "../src/index.js";
import { ShellHandler } from "../src/subpaths/handlers.js";
import { rawTrue, shellInvocation } from "./lib/commands.js";
import { median } from "./lib/stats.js";

const RUNS = 20;

const handler = new ShellHandler({ timeoutMs: 60_000 });
const turn = createTurnContext();

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

const handlerMs: number[] = [];
const rawMs: number[] = [];
await time(rawTrue); // warm-up
await time(() => handler.handle(shellInvocation(["true"], turn)));
for (let i = 0; i < RUNS; i++) {
  rawMs.push(await time(rawTrue));
  handlerMs.push(await time(() => handler.handle(shellInvocation(["true"], turn))));
}

const big = shellInvocation(["bash", "-c", `yes abcdefghi | head -c ${50 * 1024 * 1024}`], turn);
const bigMs = await time(() => handler.handle(big));
const capture = handler.captureOf(big);

process.stdout.write(
  JSON.stringify(
    {
      trueViaHandlerMedianMs: +median(handlerMs).toFixed(3),
      trueViaRawSpawnMedianMs: +median(rawMs).toFixed(3),
      overheadMedianMs: +(median(handlerMs) - median(rawMs)).toFixed(3),
      output50MB: {
        totalBytes: capture?.totalBytes,
        peakRetainedBytes: capture?.peakRetainedBytes,
        wallMs: +bigMs.toFixed(1),
      },
    },
    null,
    2,
  ) + "\n",
);
