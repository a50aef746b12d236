/**
 * Shell handler cost, run once by hand (`npx tsx bench/exec.ts`): median of 20 `true` through
 * the `shell` handler versus a raw `child_process.spawn`, and the peak bytes the handler
 * retains for a command printing 50 MB.
 */
import { spawn } from "node:child_process";
import { createTurnContext, type ToolInvocation } from "../src/index.js";
import { ShellHandler } from "../src/subpaths/handlers.js";

const RUNS = 20;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

const handler = new ShellHandler({ timeoutMs: 60_000 });
const turn = createTurnContext();

function invocation(command: string[]): ToolInvocation {
  const args = { command };
  return {
    callId: "bench",
    toolName: "shell",
    payload: { kind: "function", arguments: JSON.stringify(args) },
    args,
    signal: new AbortController().signal,
    turn,
    context: undefined,
  };
}

function rawSpawn(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("true", [], { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.resume();
    child.stderr.resume();
    child.once("error", reject);
    child.once("close", () => {
      resolve();
    });
  });
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

const handlerMs: number[] = [];
const rawMs: number[] = [];
await time(rawSpawn); // warm-up
await time(() => handler.handle(invocation(["true"])));
for (let i = 0; i < RUNS; i++) {
  rawMs.push(await time(rawSpawn));
  handlerMs.push(await time(() => handler.handle(invocation(["true"]))));
}

const big = invocation(["bash", "-c", `yes abcdefghi | head -c ${50 * 1024 * 1024}`]);
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
