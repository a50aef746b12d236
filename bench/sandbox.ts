/**
 * `npx tsx bench/sandbox.ts [--reps N]`: what bubblewrap adds to one command. Runs `true`
 * through `runCommand` sandboxed (workspace-write), unsandboxed (danger-full-access: its own PID
 * namespace under bubblewrap) and as a plain spawn (danger-full-access with no bubblewrap on
 * PATH: the process group alone), interleaved (the order rotating each repetition) so machine
 * noise falls on all alike,
 * after 2 warm-up runs of each. Prints the medians (ms, spawn to exit and reaped) and their ratio. Measures, asserts
 * nothing.
 */
import { mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
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
// A PATH with `true` and no bubblewrap: the plain spawn.
const bare = path.join(cwd, "bin");
await mkdir(bare);
await symlink("/bin/true", path.join(bare, "true"));
try {
  const contenders: Array<{ name: string; env: ExecEnvironment; samples: number[]; path?: string }> = [
    { name: "plain spawn", env: await createExecEnvironment({ cwd }), samples: [], path: bare },
    { name: "unsandboxed", env: await createExecEnvironment({ cwd }), samples: [] },
    {
      name: "bubblewrap",
      env: await createExecEnvironment({ cwd, sandbox: { mode: "workspace-write" } }),
      samples: [],
    },
  ];

  const hostPath = process.env["PATH"];
  const once = async (c: (typeof contenders)[number]): Promise<number> => {
    process.env["PATH"] = c.path ?? hostPath;
    const start = performance.now();
    const result = await runCommand(c.env, { argv: ["true"], cwd }, { timeoutMs: 10_000 });
    const ms = performance.now() - start;
    process.env["PATH"] = hostPath;
    if (result.exitCode !== 0) throw new Error(`true exited ${result.exitCode} in ${c.name}`);
    return ms;
  };

  for (let i = 0; i < 2; i++) for (const c of contenders) await once(c);
  for (let i = 0; i < reps; i++) {
    const order = [...contenders.slice(i % contenders.length), ...contenders.slice(0, i % contenders.length)];
    for (const c of order) c.samples.push(await once(c));
  }

  const lines = contenders.map(
    (c) =>
      `${c.name.padEnd(12)} median ${median(c.samples).toFixed(2)} ms  p95 ${quantile(c.samples, 0.95).toFixed(2)} ms  (${c.samples.length} runs)`,
  );
  const [plain, unsandboxed, bwrap] = contenders as [
    (typeof contenders)[0],
    (typeof contenders)[0],
    (typeof contenders)[0],
  ];
  const ratio = (a: (typeof contenders)[0], b: (typeof contenders)[0]): string =>
    (median(a.samples) / median(b.samples)).toFixed(2);
  lines.push(`ratio        unsandboxed (PID namespace) / plain spawn = ${ratio(unsandboxed, plain)}x`);
  lines.push(`ratio        bubblewrap / plain spawn = ${ratio(bwrap, plain)}x`);
  process.stdout.write(`${lines.join("\n")}\n`);
} finally {
  await rm(cwd, { recursive: true, force: true });
}
