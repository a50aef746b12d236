/**
 * `npx tsx bench/execSession.ts [--reps N]`: what a `write_stdin` round trip costs. Opens a `cat`
 * session on a PTY through the runtime, then sends a line N times with `yield_time_ms` 250 (the
 * least Codex allows: the call waits that long for output), and prints the median and p95 wall
 * time of a call and what it costs beyond the yield. Measures, asserts nothing.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createToolRouter, createTurnContext, ToolCallRuntime } from "../src/index.js";
import { median, quantile } from "./lib/stats.js";

const args = process.argv.slice(2);
const repsAt = args.indexOf("--reps");
const reps = repsAt >= 0 ? Number(args[repsAt + 1]) : 20;
if (!Number.isInteger(reps) || reps < 1) {
  process.stderr.write("usage: npx tsx bench/execSession.ts [--reps N]\n");
  process.exit(2);
}
const YIELD_MS = 250;

const cwd = await mkdtemp(path.join(os.tmpdir(), "bench-exec-session-"));
const router = await createToolRouter({ shell: "unified_exec" });
const turn = createTurnContext({ cwd });
let n = 0;
async function call(name: string, input: unknown): Promise<string> {
  const runtime = new ToolCallRuntime(router, turn);
  runtime.submit({ type: "function_call", call_id: `c${++n}`, name, arguments: JSON.stringify(input) });
  const [item] = await runtime.drain();
  return (item as { output: string }).output;
}
try {
  const opened = await call("exec_command", { cmd: "cat", login: false, tty: true, yield_time_ms: YIELD_MS });
  const id = Number(/session ID (\d+)/.exec(opened)?.[1]);
  if (!Number.isInteger(id)) throw new Error(`no session: ${opened}`);
  const samples: number[] = [];
  for (let i = 0; i < reps + 2; i++) {
    const start = performance.now();
    const out = await call("write_stdin", { session_id: id, chars: `line ${i}\n`, yield_time_ms: YIELD_MS });
    if (!out.includes(`line ${i}`)) throw new Error(`lost output: ${out}`);
    if (i >= 2) samples.push(performance.now() - start);
  }
  const m = median(samples);
  process.stdout.write(
    `write_stdin round trip  median ${m.toFixed(2)} ms  p95 ${quantile(samples, 0.95).toFixed(2)} ms  ` +
      `(${samples.length} calls, yield ${YIELD_MS} ms: ${(m - YIELD_MS).toFixed(2)} ms beyond it)\n`,
  );
} finally {
  await router.close();
  await rm(cwd, { recursive: true, force: true });
}
