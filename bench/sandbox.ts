/**
 * `npx tsx bench/sandbox.ts [--reps N]`: what bubblewrap adds to one command. Runs `true`
 * through `runCommand` sandboxed (workspace-write) and unsandboxed (danger-full-access),
 * interleaved (the order alternating each repetition) so machine noise falls on both alike,
 * after 2 warm-up runs of each. Prints the medians (ms, spawn to exit and reaped) and their ratio. Measures, asserts
 * nothing.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { ExecEnvironment } from "../src/protocol/index.js";
import { createExecEnvironment, runCommand } from "../src/sandbox/index.js";
import { median, quantile } from "./lib/stats.js";

const args = process.argv.slice(2);
const repsAt = args.indexOf("--reps");
const reps = repsAt >= 0 ? Number(args[repsAt + 1]) : 20;
if (!Number.isInteger(reps) || reps < 1) {
  process.stderr.write("usage: npx tsx bench/sandbox.ts [--reps N]\n");
  process.exit(2);
}

const cwd = await mkdtemp(path.join(os.tmpdir(), "bench-sandbox-"));
try {
  const contenders: Array<{ name: string; env: ExecEnvironment; samples: number[] }> = [
    { name: "unsandboxed", env: await createExecEnvironment({ cwd }), samples: [] },
    {
      name: "bubblewrap",
      env: await createExecEnvironment({ cwd, sandbox: { mode: "workspace-write" } }),
      samples: [],
    },
  ];

  const once = async (env: ExecEnvironment): Promise<number> => {
    const start = performance.now();
    const result = await runCommand(env, { argv: ["true"], cwd }, { timeoutMs: 10_000 });
    const ms = performance.now() - start;
    if (result.exitCode !== 0) throw new Error(`true exited ${result.exitCode} in ${env.kind}`);
    return ms;
  };

  for (let i = 0; i < 2; i++) for (const c of contenders) await once(c.env);
  for (let i = 0; i < reps; i++) {
    const order = i % 2 === 0 ? contenders : [...contenders].reverse();
    for (const c of order) c.samples.push(await once(c.env));
  }

  const lines = contenders.map(
    (c) =>
      `${c.name.padEnd(12)} median ${median(c.samples).toFixed(2)} ms  p95 ${quantile(c.samples, 0.95).toFixed(2)} ms  (${c.samples.length} runs)`,
  );
  const [plain, bwrap] = contenders as [(typeof contenders)[0], (typeof contenders)[0]];
  lines.push(`ratio        bubblewrap / unsandboxed = ${(median(bwrap.samples) / median(plain.samples)).toFixed(2)}x`);
  process.stdout.write(`${lines.join("\n")}\n`);
} finally {
  await rm(cwd, { recursive: true, force: true });
}
