/**
 * `npm run bench [-- --quick] [--only a,b] [--out file] [--no-install] [--lib dist/index.js]`: runs
 * every scenario, each in its own child process (so one scenario's heap, JIT state and loaded
 * peers cannot colour the next), prints one table and writes the results file. `--lib` measures a
 * library already built (the test suite's smoke run gives dist/) instead of compiling one.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import prettier from "prettier";
import { fileURLToPath } from "node:url";
import {
  renderHeader,
  renderNotes,
  renderTable,
  targetSummary,
  withResultsTable,
  type BenchResults,
  type ScenarioResult,
} from "./lib/report.js";
import type { Scenario, ScenarioContext, ScenarioOutput } from "./lib/scenario.js";
import { writeCharts } from "./charts.js";
import { SCENARIOS } from "./scenarios/index.js";

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const RESULT_MARKER = "BENCH_RESULT ";
const BUILD_DIR = path.join(BENCH_DIR, ".build");
const PEERS = ["ai", "@langchain/langgraph", "@langchain/core", "@openai/agents", "zod"];

interface Options {
  quick: boolean;
  only: string[] | undefined;
  out: string;
  install: boolean;
  child: string | undefined;
  lib: string | undefined;
}

function usage(problem: string): never {
  process.stderr.write(
    `bench: ${problem}\nusage: npm run bench -- [--quick] [--only ${SCENARIOS.map((s) => s.id).join(",")}] [--out FILE] [--no-install] [--lib FILE]\n`,
  );
  process.exit(2);
}

function parseArgs(argv: string[]): Options {
  const opts: Options = { quick: false, only: undefined, out: "", install: true, child: undefined, lib: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = (): string => argv[++i] ?? usage(`${arg} needs a value`);
    if (arg === "--quick") opts.quick = true;
    else if (arg === "--no-install") opts.install = false;
    else if (arg === "--only") opts.only = value().split(",").filter(Boolean);
    else if (arg === "--out") opts.out = path.resolve(value());
    else if (arg === "--child") opts.child = value();
    else if (arg === "--lib") opts.lib = path.resolve(value());
    else usage(`unknown argument ${arg}`);
  }
  for (const id of [...(opts.only ?? []), ...(opts.child ? [opts.child] : [])]) {
    if (!SCENARIOS.some((s) => s.id === id)) usage(`unknown scenario ${id}`);
  }
  if (opts.lib !== undefined && !existsSync(opts.lib)) usage(`--lib ${opts.lib}: no such file`);
  // A quick run must never overwrite the published full results.
  opts.out ||= path.join(BENCH_DIR, "results", opts.quick ? "quick.json" : "latest.json");
  return opts;
}

const settings = (quick: boolean): ScenarioContext["reps"] =>
  quick ? { warmup: 1, reps: 3 } : { warmup: 2, reps: 10 };

/** Child mode: run one scenario and print its output as one marked JSON line. */
async function runChild(scenario: Scenario, quick: boolean): Promise<void> {
  const ctx: ScenarioContext = {
    quick,
    reps: settings(quick),
    log: (message) => process.stderr.write(`  [${scenario.id}] ${message}\n`),
  };
  const output = await scenario.run(ctx);
  process.stdout.write(`${RESULT_MARKER}${JSON.stringify(output)}\n`);
}

function peersInstalled(): boolean {
  return PEERS.every((name) => existsSync(path.join(BENCH_DIR, "node_modules", name, "package.json")));
}

/** Installs the peer packages from bench/package-lock.json when any is missing. */
function ensurePeers(): void {
  if (peersInstalled()) return;
  process.stderr.write("bench: installing peer packages (npm ci --prefix bench)…\n");
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const res = spawnSync(npm, ["ci", "--prefix", BENCH_DIR, "--no-audit", "--no-fund"], {
    stdio: ["ignore", process.stderr, process.stderr],
  });
  if (res.status !== 0) process.stderr.write("bench: peer install failed; the peers scenario will be skipped\n");
}

/**
 * Compiles the library with tsc into bench/.build, so the numbers are those of the code users
 * install (tsx's transform adds a helper call to every function). Returns the entry point, or
 * undefined when the build failed and the scenarios fall back to the source.
 */
function buildLibrary(): string | undefined {
  const tsc = path.join(BENCH_DIR, "..", "node_modules", "typescript", "bin", "tsc");
  const project = path.join(BENCH_DIR, "..", "tsconfig.build.json");
  const args = [tsc, "-p", project, "--outDir", BUILD_DIR, "--declaration", "false", "--sourceMap", "false"];
  const res = spawnSync(process.execPath, args, { stdio: ["ignore", process.stderr, process.stderr] });
  const entry = path.join(BUILD_DIR, "index.js");
  if (res.status !== 0 || !existsSync(entry)) {
    process.stderr.write("bench: building the library failed; measuring the TypeScript source through tsx\n");
    return undefined;
  }
  return entry;
}

function runInChild(
  scenario: Scenario,
  quick: boolean,
  timeoutMs: number,
  libEntry: string | undefined,
): Promise<ScenarioOutput> {
  return new Promise((resolve) => {
    const args = [
      ...process.execArgv,
      "--expose-gc",
      fileURLToPath(import.meta.url),
      "--child",
      scenario.id,
      ...(quick ? ["--quick"] : []),
    ];
    const env = libEntry ? { ...process.env, TOOLCALL_BENCH_LIB: libEntry } : process.env;
    const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderrTail = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      process.stderr.write(chunk);
      stderrTail = (stderrTail + chunk).slice(-2000);
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const line = stdout.split("\n").find((l) => l.startsWith(RESULT_MARKER));
      if (code === 0 && line) {
        resolve(JSON.parse(line.slice(RESULT_MARKER.length)) as ScenarioOutput);
        return;
      }
      const why = signal === "SIGKILL" ? `timed out after ${timeoutMs / 1000}s` : `exited with ${code ?? signal}`;
      const lastError = stderrTail.trim().split("\n").filter(Boolean).slice(-3).join(" / ");
      resolve({ status: "error", note: `${why}${lastError ? `: ${lastError}` : ""}`, variants: [], metrics: [] });
    });
  });
}

const loadAverage = (): number[] => os.loadavg().map((l) => Math.round(l * 100) / 100);

/** docs/performance.md's table of the last full run, rewritten from `results`. */
async function publishTable(results: BenchResults): Promise<string[]> {
  const doc = path.join(BENCH_DIR, "..", "docs", "performance.md");
  const next = withResultsTable(await readFile(doc, "utf8"), results);
  if (next === undefined) return [];
  // Formatted as `npm run lint` checks it.
  const options = { ...(await prettier.resolveConfig(doc)), filepath: doc };
  await writeFile(doc, await prettier.format(next, options));
  return [doc];
}

function machine(loadAtStart: number[]): BenchResults["machine"] {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? "unknown",
    cores: cpus.length,
    node: process.version,
    platform: process.platform,
    arch: process.arch,
    totalMemoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    load: { start: loadAtStart, end: loadAverage() },
  };
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.child) return runChild(SCENARIOS.find((s) => s.id === opts.child) as Scenario, opts.quick);

  const loadAtStart = loadAverage();
  const selected = SCENARIOS.filter((s) => !opts.only || opts.only.includes(s.id));
  if (opts.install && selected.some((s) => s.id === "peers")) ensurePeers();
  const libEntry = opts.lib ?? buildLibrary();
  const scenarios: ScenarioResult[] = [];
  for (const scenario of selected) {
    process.stderr.write(`bench: ${scenario.id}: ${scenario.title}\n`);
    const start = performance.now();
    // Ceilings for a hung scenario, not budgets: the quick run is the test suite's smoke run, on a
    // machine the rest of the suite loads.
    const output = await runInChild(scenario, opts.quick, opts.quick ? 600_000 : 900_000, libEntry);
    scenarios.push({
      id: scenario.id,
      title: scenario.title,
      durationMs: Math.round(performance.now() - start),
      ...output,
    });
  }
  const results: BenchResults = {
    schemaVersion: 1,
    generatedAt: new Date().toISOString(),
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}`,
    mode: opts.quick ? "quick" : "full",
    machine: machine(loadAtStart),
    library: opts.lib ? `given build (${opts.lib})` : libEntry ? "compiled build (tsc)" : "TypeScript source via tsx",
    settings: settings(opts.quick),
    scenarios,
  };
  await mkdir(path.dirname(opts.out), { recursive: true });
  await writeFile(opts.out, `${JSON.stringify(results, null, 2)}\n`);
  // The pictures and the table of docs/performance.md come from full runs of every scenario only.
  const published = !opts.quick && opts.only === undefined;
  const written = published
    ? [...(await writeCharts(results, path.dirname(opts.out))), ...(await publishTable(results))]
    : [];

  const { held, missed } = targetSummary(results);
  process.stdout.write(`\n${renderHeader(results)}\n\n${renderTable(results)}\n\n${renderNotes(results)}\n\n`);
  process.stdout.write(
    `targets held: ${held.length}, missed: ${missed.length}\n${missed.map((m) => `  missed: ${m}\n`).join("")}`,
  );
  process.stdout.write(`results: ${path.relative(process.cwd(), opts.out)}\n`);
  for (const file of written) process.stdout.write(`wrote: ${path.relative(process.cwd(), file)}\n`);
  if (scenarios.some((s) => s.status === "error")) process.exitCode = 1;
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
