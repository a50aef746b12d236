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

/** The load average and cores, for the record. */
export function machineLine(): string {
  return `load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" / ")}, ${os.cpus().length} cores, node ${process.version}`;
}
