/**
 * `npx tsx bench/sandbox.ts [--reps N]`: what bubblewrap adds. Runs `true` through `runCommand`
 * as a plain spawn (danger-full-access without a PID namespace), unconfined in its own PID
 * namespace (danger-full-access) and sandboxed (workspace-write), interleaved and each in its own
 * environment (so its standby bubblewrap starts while the others run); then the same three back
 * to back in one environment each (the next command's standby starts while the current one
 * runs, and may not be ready yet); then interleaved with a pause of 100 ms before each command
 * (a model's turn between two calls: each standby is ready); then a `read_file` and a
 * `write_file` call (the whole tool call: host checks, the read ledger, the file operations) in
 * both, the sandboxed ones through the resident helper inside bubblewrap. Each pair is
 * interleaved (the order alternating each repetition) so machine noise falls on both alike,
 * after 2 warm-up runs of each. Prints the medians (ms) and their ratios. Measures, asserts
 * nothing.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createToolRouter, createTurnContext, ToolCallRuntime, type ToolRouter } from "../src/index.js";
import type { ExecEnvironment } from "../src/protocol/index.js";
import { createExecEnvironment, localFileOps, runCommand } from "../src/sandbox/index.js";
import { median, quantile } from "./lib/stats.js";
import { NO_LOOP_DETECTION } from "./lib/tools.js";

const args = process.argv.slice(2);
const repsAt = args.indexOf("--reps");
const reps = repsAt >= 0 ? Number(args[repsAt + 1]) : 20;
if (!Number.isInteger(reps) || reps < 1) {
  process.stderr.write("usage: npx tsx bench/sandbox.ts [--reps N]\n");
  process.exit(2);
}

const cwd = await mkdtemp(path.join(os.tmpdir(), "bench-sandbox-"));
try {
  type Contender = { name: string; env: ExecEnvironment; samples: number[] };
  const contenders: Contender[] = [
    { name: "unsandboxed", env: await createExecEnvironment({ cwd }), samples: [] },
    {
      name: "bubblewrap",
      env: await createExecEnvironment({ cwd, sandbox: { mode: "workspace-write" } }),
      samples: [],
    },
  ];

  // The same bubblewrap environment with the file operations in the host process (what the
  // file tools did before the helper): the helper's own cost, apart from the host's checks.
  const commandContenders: Contender[] = [
    { name: "plain", env: await createExecEnvironment({ cwd, pidNamespace: false }), samples: [] },
    ...contenders,
  ];
  const direct: ExecEnvironment = Object.create(contenders[1]!.env, { files: { value: localFileOps } });
  const fileContenders: Contender[] = [...contenders, { name: "bwrap-direct", env: direct, samples: [] }];

  const command = async (env: ExecEnvironment): Promise<number> => {
    const start = performance.now();
    const result = await runCommand(env, { argv: ["true"], cwd }, { timeoutMs: 10_000 });
    const ms = performance.now() - start;
    if (result.exitCode !== 0) throw new Error(`true exited ${result.exitCode} in ${env.kind}`);
    return ms;
  };

  // One session per environment: write_file replaces a file the session has read.
  const routers = new Map<ExecEnvironment, ToolRouter>();
  for (const c of fileContenders)
    routers.set(c.env, await createToolRouter({ ...NO_LOOP_DETECTION, shell: false, writeFile: true }));
  // A file per environment: each session's write would be the other's change since its read.
  const files = new Map<ExecEnvironment, string>();
  for (const [i, c] of fileContenders.entries()) {
    files.set(c.env, path.join(cwd, `file${i}.txt`));
    await writeFile(files.get(c.env)!, "a line of text\n".repeat(200));
  }
  let seq = 0;
  const tool = async (env: ExecEnvironment, name: string, args: unknown): Promise<number> => {
    const runtime = new ToolCallRuntime(routers.get(env)!, createTurnContext({ cwd, environment: env }));
    const start = performance.now();
    runtime.submit({ type: "function_call", call_id: `c${++seq}`, name, arguments: JSON.stringify(args) });
    const [outcome] = await runtime.drainOutcomes();
    const ms = performance.now() - start;
    if (!outcome || !outcome.success) throw new Error(`${name} failed in ${env.kind}: ${JSON.stringify(outcome)}`);
    return ms;
  };
  const readFile = (env: ExecEnvironment): Promise<number> => tool(env, "read_file", { file_path: files.get(env) });
  const write = (env: ExecEnvironment): Promise<number> =>
    tool(env, "write_file", { file_path: files.get(env), content: "a line of text\n".repeat(200) });

  const lines: string[] = [];
  const report = (c: Contender): string =>
    `  ${c.name.padEnd(12)} median ${median(c.samples).toFixed(2)} ms  p95 ${quantile(c.samples, 0.95).toFixed(2)} ms  (${c.samples.length} runs)`;
  const ratio = (a: Contender, b: Contender): string =>
    `  ratio        ${a.name} / ${b.name} = ${(median(a.samples) / median(b.samples)).toFixed(2)}x`;
  const [plain, unconfined, sandboxed] = commandContenders as [Contender, Contender, Contender];

  // Back to back in one environment: no other command between two of the same environment.
  lines.push("command `true`, back to back");
  for (const c of commandContenders) {
    c.samples = [];
    for (let i = 0; i < 2; i++) await command(c.env);
    for (let i = 0; i < reps; i++) c.samples.push(await command(c.env));
    lines.push(report(c));
  }
  lines.push(ratio(unconfined, plain), ratio(sandboxed, plain));

  // A pause (not measured) before each command, as a model's turn leaves between two calls:
  // the standby started after the previous command is ready, and its start (which stalls the
  // event loop for a spawn's time) falls outside every measurement.
  const spaced = async (env: ExecEnvironment): Promise<number> => {
    await new Promise((resolve) => setTimeout(resolve, 100));
    return command(env);
  };

  for (const [what, once, who] of [
    ["command `true`, interleaved", command, commandContenders],
    ["command `true`, interleaved, 100 ms apart", spaced, commandContenders],
    ["read_file", readFile, fileContenders],
    ["write_file", write, fileContenders],
  ] as const) {
    for (const c of who) c.samples = [];
    for (let i = 0; i < 2; i++) for (const c of who) await once(c.env);
    for (let i = 0; i < reps; i++) {
      const order = i % 2 === 0 ? who : [...who].reverse();
      for (const c of order) c.samples.push(await once(c.env));
    }
    lines.push(what);
    for (const c of who) lines.push(report(c));
    if (once === command || once === spaced) {
      lines.push(ratio(unconfined, plain), ratio(sandboxed, plain));
    } else {
      const [unsandboxed, bwrap, inProcess] = who as unknown as readonly [Contender, Contender, Contender];
      lines.push(ratio(bwrap, unsandboxed), ratio(bwrap, inProcess));
    }
  }
  process.stdout.write(`${lines.join("\n")}\n`);
  await Promise.all(commandContenders.map((c) => c.env.close?.() ?? Promise.resolve()));
} finally {
  await rm(cwd, { recursive: true, force: true });
}
