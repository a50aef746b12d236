/**
 * `npx tsx bench/compare.ts BASE_DIST NEW_DIST [--reps N] [--cpu]`: the dispatch overhead of two builds
 * of the library (each a `dist/` folder made with `tsc -p tsconfig.build.json`), interleaved in
 * one process so machine noise falls on both alike. Each sample is the per-call cost in µs over
 * a bare `await handler(JSON.parse(args))` measured in the same repetition. Prints medians,
 * quartiles and the new/base ratio: the tool for "the path must not get slower" when refactoring.
 * Each of the two measurements runs in a process of its own (as `run.ts` runs scenarios): what
 * V8 learned from one (which allocation sites to pretenure, say) must not colour the other.
 *
 * `npx tsx --expose-gc bench/compare.ts BASE_DIST NEW_DIST --scaling [--reps N]`: the scaling
 * scenario on both builds instead (per-call cost of turns of 100 → 100 000 calls, its ratio to
 * the 100-call turn, heap per queued call): one process per build and size, the two builds'
 * blocks of a size back to back.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type * as Lib from "../src/index.js";
import { QUEUED, SCALING_SIZES, scalingSubject, turnItems } from "./lib/scaling.js";
import { median, quantile } from "./lib/stats.js";

const args = process.argv.slice(2);
const valueOf = (flag: string): string | undefined => {
  const at = args.indexOf(flag);
  return at >= 0 ? args[at + 1] : undefined;
};
const reps = Number(valueOf("--reps") ?? 15);
const scaling = args.includes("--scaling");
/** Set in a child: the one dispatch measurement it runs. */
const only = valueOf("--scenario");
/** Set in a child: the one scaling block it runs (`BUILD:SIZE` or `BUILD:heap`). */
const block = valueOf("--block");
const VALUED = new Set(["--reps", "--scenario", "--block"]);
const dists = args.filter((a, i) => !a.startsWith("--") && !VALUED.has(args[i - 1] ?? ""));
if (dists.length !== 2 || !Number.isInteger(reps) || reps < 1) {
  process.stderr.write(
    "usage: npx tsx [--expose-gc] bench/compare.ts BASE_DIST NEW_DIST [--reps N] [--cpu] [--scaling]\n",
  );
  process.exit(2);
}

const load = async (dist: string): Promise<typeof Lib> =>
  (await import(pathToFileURL(path.resolve(dist, "index.js")).href)) as typeof Lib;
type Which = "base" | "new";
/** Both builds, loaded only where a dispatch measurement runs (not in the parent that spawns it). */
const loadBoth = async (): Promise<Record<Which, typeof Lib>> => ({
  base: await load(dists[0]!),
  new: await load(dists[1]!),
});
const WARMUP = 3;

/** Each repetition runs both builds, the order alternating, so neither always goes first. */
const orderOf = (rep: number): readonly Which[] => (rep % 2 === 0 ? ["base", "new"] : ["new", "base"]);

/** `median [p25–p75]` of a sample. */
const spread = (xs: readonly number[], digits: number): string =>
  `${median(xs).toFixed(digits)} [${quantile(xs, 0.25).toFixed(digits)}–${quantile(xs, 0.75).toFixed(digits)}]`;

function line(name: string, unit: string, samples: Record<Which, number[]>, digits = 2): void {
  const b = median(samples.base);
  const n = median(samples.new);
  process.stdout.write(
    `${name}: base ${spread(samples.base, digits)} ${unit}, new ${spread(samples.new, digits)} ${unit}, new/base ${(n / b).toFixed(2)} (medians [quartiles] of ${samples.base.length})\n`,
  );
}

const noop = async (a: { n: number }): Promise<string> => (a.n >= 0 ? "ok" : "negative");
const SPEC = {
  type: "function" as const,
  name: "noop",
  description: "Does nothing.",
  parameters: {
    type: "object",
    properties: { n: { type: "integer", minimum: 0 } },
    required: ["n"],
    additionalProperties: false,
  },
};

function setup(lib: typeof Lib) {
  const handler: Lib.ToolHandler = {
    kind: "function",
    handle: async (inv) => ({ kind: "function", body: await noop(inv.args as { n: number }) }),
  };
  const { specs, registry } = new lib.ToolRegistryBuilder()
    .pushSpecWithParallelSupport(SPEC, true)
    .registerHandler("noop", handler)
    .build();
  return { lib, router: new lib.ToolRouter(registry, specs, undefined, NO_LOOP_DETECTION) };
}

/** One call with one result, repeated: loop detection (DESIGN section 18) would stop it; a build without it ignores the option. */
const NO_LOOP_DETECTION = { loopLimit: 0 };

const items = (prefix: string, n: number): Lib.FunctionCallItem[] =>
  Array.from({ length: n }, (_, i) => ({
    type: "function_call",
    call_id: `${prefix}${i}`,
    name: "noop",
    arguments: '{"n":1}',
  }));

/**
 * `--cpu`: this process's CPU time (user + system, every thread) instead of wall time. On a
 * shared machine whose load runs well past its cores, wall time mostly measures how long the
 * process waited to be scheduled; the work of a call is CPU-bound either way.
 */
const cpu = args.includes("--cpu");

async function timeUs(fn: () => Promise<void>): Promise<number> {
  if (cpu) {
    const c0 = process.cpuUsage();
    await fn();
    const { user, system } = process.cpuUsage(c0);
    return user + system;
  }
  const t0 = performance.now();
  await fn();
  return (performance.now() - t0) * 1000;
}

type Subject = ReturnType<typeof setup>;
const SCENARIOS: Record<string, { calls: number; run: (s: Subject, batch: Lib.FunctionCallItem[]) => Promise<void> }> =
  {
    "batch of 100, submit + drain": {
      calls: 100,
      run: async ({ lib, router }, batch) => {
        for (let r = 0; r < 100; r++) {
          const runtime = new lib.ToolCallRuntime(router, lib.createTurnContext());
          for (const item of batch) runtime.submit(item);
          if ((await runtime.drainOutcomes()).length !== batch.length) throw new Error("lost an output");
        }
      },
    },
    "sequential submit + drain": {
      calls: 10_000,
      run: async ({ lib, router }, batch) => {
        const runtime = new lib.ToolCallRuntime(router, lib.createTurnContext());
        for (const item of batch) {
          runtime.submit(item);
          const [o] = await runtime.drainOutcomes();
          if (!o?.success) throw new Error("a call failed");
        }
      },
    },
  };

/** Runs each dispatch measurement in a child process of its own (this script with `--scenario`). */
function spawnEach(): void {
  for (const name of Object.keys(SCENARIOS)) {
    const child = [...process.execArgv, fileURLToPath(import.meta.url), ...args, "--scenario", name];
    const res = spawnSync(process.execPath, child, { stdio: "inherit" });
    if (res.status !== 0) process.exit(res.status ?? 1);
  }
}

async function compareDispatch(name: string): Promise<void> {
  const { calls, run } = SCENARIOS[name] ?? usageError(`unknown scenario ${name}`);
  const libs = await loadBoth();
  const subjects = { base: setup(libs.base), new: setup(libs.new) };
  const batch = items("c", calls);
  const perRun = name.startsWith("batch") ? calls * 100 : calls;
  const samples: Record<Which, number[]> = { base: [], new: [] };
  for (let rep = -WARMUP; rep < reps; rep++) {
    const bare = await timeUs(async () => {
      for (let r = 0; r < perRun / batch.length; r++)
        for (const item of batch) await noop(JSON.parse(item.arguments) as { n: number });
    });
    for (const which of orderOf(rep)) {
      const us = await timeUs(() => run(subjects[which], batch));
      if (rep >= 0) samples[which].push((us - bare) / perRun);
    }
  }
  line(`${name}: overhead per call`, "µs", samples);
}

/**
 * One block of the scaling comparison, in a child process of its own (`--block BUILD:SIZE` or
 * `BUILD:heap`): one build only, so neither build's garbage (a 100 000-call turn of the old lock
 * leaves well over 100 MB) falls on the other's samples. Prints the samples as JSON.
 */
async function scalingBlock(block: string): Promise<void> {
  const [which, what] = block.split(":") as [Which, string];
  const subject = scalingSubject(await load(dists[which === "base" ? 0 : 1]!));
  const samples: number[] = [];
  if (what === "heap") {
    for (let rep = -1; rep < reps; rep++) {
      const bytes = await subject.queuedHeapBytes();
      if (rep >= 0) samples.push(bytes);
    }
  } else {
    const n = Number(what);
    const items = turnItems([n]).get(n)!;
    for (let rep = -WARMUP; rep < reps; rep++) {
      // Small turns are averaged over 100 ms; a large one is a sample by itself.
      const us = await subject.perCallUs(items, n < 10_000 ? 100 : 0);
      if (rep >= 0) samples.push(us);
    }
  }
  process.stdout.write(JSON.stringify(samples));
}

function spawnBlock(which: Which, what: number | "heap"): number[] {
  const child = [...process.execArgv, fileURLToPath(import.meta.url), ...args, "--block", `${which}:${what}`];
  const res = spawnSync(process.execPath, child, { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  if (res.status !== 0) process.exit(res.status ?? 1);
  return JSON.parse(res.stdout) as number[];
}

/** The scaling scenario on both builds: per size, each build's block back to back, the order alternating. */
function compareScaling(): void {
  const perCall = new Map<number, Record<Which, number[]>>();
  for (const [k, n] of SCALING_SIZES.entries()) {
    const samples: Record<Which, number[]> = { base: [], new: [] };
    for (const which of orderOf(k)) samples[which] = spawnBlock(which, n);
    perCall.set(n, samples);
  }
  const heap: Record<Which, number[]> = { base: [], new: [] };
  for (const which of orderOf(0)) heap[which] = spawnBlock(which, "heap");
  const reference = perCall.get(SCALING_SIZES[0])!;
  for (const n of SCALING_SIZES) {
    const samples = perCall.get(n)!;
    line(`turn of ${n} calls: cost per call`, "µs", samples);
    if (n === SCALING_SIZES[0]) continue;
    const ratio = (w: Which): string => (median(samples[w]) / median(reference[w])).toFixed(2);
    process.stdout.write(
      `  ${n}/${SCALING_SIZES[0]} per-call ratio (of medians): base ${ratio("base")}×, new ${ratio("new")}×\n`,
    );
  }
  line(`heap per queued call (${QUEUED} queued behind an exclusive call)`, "B", heap, 0);
}

function usageError(problem: string): never {
  process.stderr.write(`compare: ${problem}\n`);
  process.exit(2);
}

if (block !== undefined) await scalingBlock(block);
else if (scaling) compareScaling();
else if (only !== undefined) await compareDispatch(only);
else spawnEach();
