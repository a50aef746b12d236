/**
 * `npx tsx bench/docker.ts [--sessions N] [--reps N]`: the Docker environment (DESIGN section 16)
 * next to the local one, in one run, on an image built here from the host's own programs
 * (test/support/docker.ts; dockerd is started when it is not running and this is root):
 *
 * - per command: `true` through `runCommand` in a warm container (`docker exec`) and locally
 *   (unconfined spawn), interleaved, medians and their ratio;
 * - container start: a fresh environment's first command (the container starts with it) minus
 *   the median warm command, and `close()` (docker rm -f);
 * - turns: N concurrent sessions (default 32), each its own environment and router, each one
 *   turn of three shell calls and an apply_patch, then close; docker and local rounds
 *   alternating; turns per second (N / the round's wall time).
 *
 * Measures, asserts nothing.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import {
  createDockerEnvironment,
  createExecEnvironment,
  createToolRouter,
  createTurnContext,
  ToolCallRuntime,
  type ExecEnvironment,
} from "../src/index.js";
import { runCommand } from "../src/subpaths/sandbox.js";
import { buildTestImage, dockerProblem, removeTestImage } from "../test/support/docker.js";
import { median, quantile } from "./lib/stats.js";
import { NO_LOOP_DETECTION } from "./lib/tools.js";

const args = process.argv.slice(2);
const flag = (name: string, fallback: number): number => {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const sessions = flag("--sessions", 32);
const reps = flag("--reps", 20);
if (![sessions, reps].every((n) => Number.isInteger(n) && n >= 1)) {
  process.stderr.write("usage: npx tsx bench/docker.ts [--sessions N] [--reps N]\n");
  process.exit(2);
}
const problem = await dockerProblem();
if (problem !== undefined) {
  process.stderr.write(`bench/docker: ${problem}\n`);
  process.exit(1);
}

const root = await mkdtemp(path.join(os.tmpdir(), "bench-docker-"));
const image = buildTestImage();
const fmt = (ms: number): string => `${ms.toFixed(1)} ms`;

async function timeTrue(env: ExecEnvironment, cwd: string): Promise<number> {
  const start = performance.now();
  const result = await runCommand(env, { argv: ["true"], cwd }, { timeoutMs: 60_000 });
  if (result.exitCode !== 0) throw new Error(`true exited ${result.exitCode} in ${env.kind}`);
  return performance.now() - start;
}

/** One session's turn: three shell calls and a patch, all answered successfully. */
async function turn(env: ExecEnvironment, cwd: string): Promise<void> {
  const router = await createToolRouter({ ...NO_LOOP_DETECTION });
  const runtime = new ToolCallRuntime(router, createTurnContext({ cwd, environment: env }));
  const shell = (id: string, command: string[]) => ({
    type: "function_call",
    call_id: id,
    name: "shell",
    arguments: JSON.stringify({ command }),
  });
  runtime.submit(shell("ls", ["ls", "-la"]));
  runtime.submit(shell("cat", ["cat", "/proc/sys/kernel/hostname"]));
  runtime.submit(shell("wc", ["wc", "-c", "/proc/self/status"]));
  runtime.submit({
    type: "custom_tool_call",
    call_id: "patch",
    name: "apply_patch",
    input: "*** Begin Patch\n*** Add File: notes.txt\n+hello from the turn\n*** End Patch",
  });
  const outcomes = await runtime.drainOutcomes();
  await router.close();
  const failed = outcomes.filter((o) => !o.success);
  if (failed.length > 0 || outcomes.length !== 4) throw new Error(`turn failed: ${JSON.stringify(failed[0]?.item)}`);
}

/** `sessions` sessions at once on fresh workspaces, each opened, one turn, closed: wall ms. */
async function round(kind: "docker" | "local", n: number): Promise<number> {
  const dirs = await Promise.all(Array.from({ length: n }, (_, i) => mkdtemp(path.join(root, `${kind}-${i}-`))));
  const start = performance.now();
  await Promise.all(
    dirs.map(async (cwd) => {
      const env =
        kind === "docker"
          ? await createDockerEnvironment({ image, workspace: cwd })
          : await createExecEnvironment({ cwd });
      try {
        await turn(env, cwd);
      } finally {
        await env.close?.();
      }
    }),
  );
  const ms = performance.now() - start;
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  return ms;
}

try {
  // Per command, interleaved.
  const ws = await mkdtemp(path.join(root, "cmd-"));
  const local = await createExecEnvironment({ cwd: ws });
  const docker = await createDockerEnvironment({ image, workspace: ws });
  const perCommand = { local: [] as number[], docker: [] as number[] };
  for (let i = 0; i < 2; i++) {
    await timeTrue(docker, ws);
    await timeTrue(local, ws);
  }
  for (let i = 0; i < reps; i++) {
    const order = i % 2 === 0 ? (["local", "docker"] as const) : (["docker", "local"] as const);
    for (const which of order) perCommand[which].push(await timeTrue(which === "local" ? local : docker, ws));
  }
  await docker.close();

  // Container start and removal.
  const warm = median(perCommand.docker);
  const startCost: number[] = [];
  const closeCost: number[] = [];
  for (let i = 0; i < Math.min(reps, 10); i++) {
    const env = await createDockerEnvironment({ image, workspace: ws });
    startCost.push((await timeTrue(env, ws)) - warm);
    const t = performance.now();
    await env.close();
    closeCost.push(performance.now() - t);
  }

  // Concurrent sessions, rounds alternating.
  await round("docker", Math.min(sessions, 4));
  await round("local", Math.min(sessions, 4));
  const rounds = { docker: [] as number[], local: [] as number[] };
  for (let i = 0; i < 3; i++) {
    const order = i % 2 === 0 ? (["docker", "local"] as const) : (["local", "docker"] as const);
    for (const kind of order) rounds[kind].push(await round(kind, sessions));
  }

  const line = (name: string, xs: number[]): string =>
    `${name.padEnd(34)} median ${fmt(median(xs))}  p95 ${fmt(quantile(xs, 0.95))}  (${xs.length} runs)`;
  const tps = (xs: number[]): string => `${((sessions * 1000) / median(xs)).toFixed(1)} turns/s`;
  process.stdout.write(
    [
      `per command (true, runCommand)`,
      line("  local spawn", perCommand.local),
      line("  docker exec (warm container)", perCommand.docker),
      `  ratio docker / local = ${(median(perCommand.docker) / median(perCommand.local)).toFixed(1)}x`,
      `container`,
      line("  start (first command - warm one)", startCost),
      line("  close (docker rm -f)", closeCost),
      `${sessions} concurrent sessions, one turn each (3 shell calls + apply_patch), open to close`,
      `  ${line("local", rounds.local).trim()}  ${tps(rounds.local)}`,
      `  ${line("docker", rounds.docker).trim()}  ${tps(rounds.docker)}`,
      `  ratio docker / local wall = ${(median(rounds.docker) / median(rounds.local)).toFixed(1)}x`,
      "",
    ].join("\n"),
  );
} finally {
  removeTestImage(image);
  await rm(root, { recursive: true, force: true });
}
