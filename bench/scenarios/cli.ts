/**
 * Scenario: `toolcall exec` start-up. A one-line turn (one `update_plan` call, validated, no
 * config file) through the bundled CLI (the package `bin`, dist/bin/) and through the plain
 * tsc build (dist/cli/main.js), against `node -e 0`, each a fresh process, interleaved.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { metric } from "../lib/report.js";
import { measure, medianOf, skipped, type Scenario } from "../lib/scenario.js";
import { timeMs } from "../lib/stats.js";

const BENCH_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const TURN = {
  type: "function_call",
  call_id: "c1",
  name: "update_plan",
  arguments: JSON.stringify({ plan: [{ step: "measure start-up", status: "in_progress" }] }),
};

/** Runs `node ...argv` in `cwd` to its exit; throws unless it exits 0 with `expect` on stdout. */
function run(argv: readonly string[], cwd: string, expect: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
    child.stderr.resume();
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0 && out.includes(expect)) resolve();
      else reject(new Error(`${argv.join(" ")} exited ${code}: ${out.slice(0, 200)}`));
    });
  });
}

export const cli: Scenario = {
  id: "cli",
  title: "CLI start-up: `toolcall exec` of a one-line turn versus `node -e 0`",
  async run(ctx) {
    const built = process.env["TOOLCALL_BENCH_LIB"];
    if (!built) return skipped("needs the tsc build (run through bench/run.ts)");
    // The bundle beside the tsc build, inside the package (ajv is required from node_modules).
    const bin = path.join(path.dirname(built), "bin");
    const bundled = spawnSync(
      process.execPath,
      [path.join(BENCH_DIR, "..", "scripts", "bundle-cli.mjs"), "--outdir", bin],
      {
        stdio: ["ignore", "inherit", "inherit"],
      },
    );
    const bundle = path.join(bin, "toolcall.js");
    if (bundled.status !== 0 || !existsSync(bundle)) throw new Error("bundling the CLI failed");
    const dir = await mkdtemp(path.join(os.tmpdir(), "toolcall-bench-cli-"));
    try {
      const turn = path.join(dir, "turn.jsonl");
      await writeFile(turn, `${JSON.stringify(TURN)}\n`);
      const output = '"call_id":"c1"';
      const reps = ctx.quick ? ctx.reps : { warmup: 3, reps: 30 };
      const variants = await measure(
        [
          { id: "node", label: "node -e 0", run: () => timeMs(() => run(["-e", "0"], dir, "")) },
          {
            id: "bundle",
            label: "toolcall exec, one call (bundled bin)",
            run: () => timeMs(() => run([bundle, "exec", turn], dir, output)),
          },
          {
            id: "tsc",
            label: "toolcall exec, one call (dist/cli/main.js, unbundled)",
            run: () => timeMs(() => run([path.join(path.dirname(built), "cli", "main.js"), "exec", turn], dir, output)),
          },
        ],
        reps,
        "ms",
      );
      const node = medianOf(variants, "node");
      return {
        status: "ok",
        note: `wall time of each process from spawn to exit; ${reps.reps} interleaved runs each; no config file, default sandbox mode`,
        variants,
        metrics: [
          metric("ratio", "toolcall exec / node -e 0", medianOf(variants, "bundle") / node, "×", {
            op: "<=",
            value: 2.2,
            description: "`toolcall exec` one-line turn within 2.2 of `node -e 0`",
          }),
          metric("tscRatio", "unbundled dist/cli/main.js / node -e 0", medianOf(variants, "tsc") / node, "×"),
        ],
      };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};
