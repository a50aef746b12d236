/**
 * Two builds of the library side by side in one process: `dist/` of a base checkout and of this
 * one (`npm run build`), so that a before/after measure interleaves its repetitions.
 */
import os from "node:os";
import { resolve } from "node:path";
import { performance } from "node:perf_hooks";
import type * as Lib from "../../src/index.js";
import { loadLibrary, type Library } from "./library.js";
import { median, quantile } from "./stats.js";

export type Build = Library;

/** The flag's value (`--base DIR`), or `fallback`. */
export function flag(name: string, fallback: string): string {
  const args = process.argv.slice(2);
  const at = args.indexOf(`--${name}`);
  return at >= 0 && args[at + 1] !== undefined ? (args[at + 1] as string) : fallback;
}

async function loadBuild(dist: string): Promise<Build> {
  return loadLibrary(resolve(dist, "index.js"));
}

/** `--base DIST` (required: a build of the commit to compare with) and `--new` (default ./dist). */
export async function loadBuilds(): Promise<{ base: Build; next: Build }> {
  const baseDir = flag("base", "");
  if (baseDir === "") throw new Error("pass --base DIST: the dist/ of the build to compare with");
  const [base, next] = await Promise.all([loadBuild(baseDir), loadBuild(flag("new", "dist"))]);
  return { base, next };
}

let counter = 0;

/** One call of `name` through `lib`'s real router and runtime; its output text and success. */
export async function callWith(
  lib: Build,
  registrations: Lib.ToolRegistration[],
  name: string,
  args: unknown,
  turn: Partial<Lib.TurnContext>,
): Promise<{ text: string; success: boolean | undefined }> {
  const builder = new lib.ToolRegistryBuilder();
  for (const { spec, handler, supportsParallel } of registrations) {
    builder.pushSpecWithParallelSupport(spec, supportsParallel).registerHandler(lib.specName(spec), handler);
  }
  const { specs, registry } = builder.build();
  const runtime = new lib.ToolCallRuntime(new lib.ToolRouter(registry, specs), lib.createTurnContext(turn));
  runtime.submit({ type: "function_call", call_id: `b${++counter}`, name, arguments: JSON.stringify(args) });
  const [item] = await runtime.drain();
  const output = (item as { output: string | { content?: string; success?: boolean } }).output;
  if (typeof output === "string") return { text: output, success: undefined };
  return { text: output.content ?? "", success: output.success };
}

export interface Contender {
  id: string;
  run: () => Promise<void>;
}

/**
 * `reps` kept repetitions (after `warmup`) of every contender, the order rotating each time;
 * wall ms per run. Prints and returns each one's median [p25–p75].
 */
export async function interleaved(
  contenders: Contender[],
  reps: number,
  warmup = 1,
): Promise<Map<string, { median: number; p25: number; p75: number }>> {
  const samples = new Map<string, number[]>(contenders.map((c) => [c.id, []]));
  for (let r = 0; r < warmup + reps; r++) {
    for (let k = 0; k < contenders.length; k++) {
      const c = contenders[(r + k) % contenders.length] as Contender;
      const start = performance.now();
      await c.run();
      const ms = performance.now() - start;
      if (r >= warmup) samples.get(c.id)?.push(ms);
    }
  }
  const out = new Map<string, { median: number; p25: number; p75: number }>();
  for (const [id, s] of samples) {
    const row = { median: median(s), p25: quantile(s, 0.25), p75: quantile(s, 0.75) };
    out.set(id, row);
    process.stdout.write(
      `${id.padEnd(34)} ${row.median.toFixed(2).padStart(10)} ms  [${row.p25.toFixed(2)}–${row.p75.toFixed(2)}]\n`,
    );
  }
  return out;
}

/**
 * Contenders that also record this process's CPU time (every thread: the I/O pool's too) per
 * unit of work, `per` units a run; `summary` gives a contender's median [p25–p75] over the runs
 * the harness kept (the last `reps`).
 */
export function cpuRecorder(per: number): {
  contender: (id: string, run: () => Promise<void>) => Contender;
  summary: (id: string, reps: number) => { median: number; p25: number; p75: number };
} {
  const samples = new Map<string, number[]>();
  return {
    contender: (id, run) => {
      samples.set(id, []);
      return {
        id,
        run: async () => {
          const start = process.cpuUsage();
          await run();
          const used = process.cpuUsage(start);
          samples.get(id)?.push((used.user + used.system) / per);
        },
      };
    },
    summary: (id, reps) => {
      const kept = (samples.get(id) ?? []).slice(-reps);
      return { median: median(kept), p25: quantile(kept, 0.25), p75: quantile(kept, 0.75) };
    },
  };
}

/** The load average and cores, for the record. */
export function machineLine(): string {
  return `load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" / ")}, ${os.cpus().length} cores, node ${process.version}`;
}
