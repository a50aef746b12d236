/**
 * `npx tsx bench/compare.ts BASE_DIST NEW_DIST [--reps N]`: the dispatch overhead of two builds
 * of the library (each a `dist/` folder made with `tsc -p tsconfig.build.json`), interleaved in
 * one process so machine noise falls on both alike. Each sample is the per-call cost in µs over
 * a bare `await handler(JSON.parse(args))` measured in the same repetition. Prints medians and
 * the new/base ratio: the tool for "the path must not get slower" when refactoring.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import type * as Lib from "../src/index.js";
import { median } from "./lib/stats.js";

const args = process.argv.slice(2);
const repsAt = args.indexOf("--reps");
const reps = repsAt >= 0 ? Number(args[repsAt + 1]) : 15;
const dists = args.filter((a, i) => !a.startsWith("--") && i !== repsAt + 1);
if (dists.length !== 2 || !Number.isInteger(reps) || reps < 1) {
  process.stderr.write("usage: npx tsx bench/compare.ts BASE_DIST NEW_DIST [--reps N]\n");
  process.exit(2);
}

const load = async (dist: string): Promise<typeof Lib> =>
  (await import(pathToFileURL(path.resolve(dist, "index.js")).href)) as typeof Lib;
const libs = { base: await load(dists[0]!), new: await load(dists[1]!) };

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
  return { lib, router: new lib.ToolRouter(registry, specs) };
}
const subjects = { base: setup(libs.base), new: setup(libs.new) };

const items = (prefix: string, n: number): Lib.FunctionCallItem[] =>
  Array.from({ length: n }, (_, i) => ({
    type: "function_call",
    call_id: `${prefix}${i}`,
    name: "noop",
    arguments: '{"n":1}',
  }));

async function timeUs(fn: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return (performance.now() - t0) * 1000;
}

type Subject = (typeof subjects)["base"];
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

for (const [name, { calls, run }] of Object.entries(SCENARIOS)) {
  const batch = items("c", calls);
  const perRun = name.startsWith("batch") ? calls * 100 : calls;
  const samples: Record<"base" | "new", number[]> = { base: [], new: [] };
  for (let rep = -3; rep < reps; rep++) {
    const order = rep % 2 === 0 ? (["base", "new"] as const) : (["new", "base"] as const);
    const bare = await timeUs(async () => {
      for (let r = 0; r < perRun / batch.length; r++)
        for (const item of batch) await noop(JSON.parse(item.arguments) as { n: number });
    });
    for (const which of order) {
      const us = await timeUs(() => run(subjects[which], batch));
      if (rep >= 0) samples[which].push((us - bare) / perRun);
    }
  }
  const b = median(samples.base);
  const n = median(samples.new);
  process.stdout.write(
    `${name}: overhead per call base ${b.toFixed(2)} µs, new ${n.toFixed(2)} µs, new/base ${(n / b).toFixed(2)} (medians of ${reps})\n`,
  );
}
