/**
 * `npx tsx bench/readFile.ts [--reps N] [--base DIST] [--new DIST] [--lines N]`: read_file of a
 * file through the runtime (a session router with its read ledger), base build vs this one,
 * beside a raw `readFile` + line numbering, and beside the floor of a checked read: the real
 * path and the file's kind asked at once (what a sandbox must know before it opens a path),
 * then `open` + `fstat` + `read` + `close` and the numbering; 200 calls a sample, interleaved,
 * medians [p25–p75] of wall time and of this process's CPU time (every thread: the I/O pool's
 * too), each with its ratio to the raw read.
 *
 * The file (default 100 lines, 3.5 kB: issue 31's "small file") is last modified a minute ago,
 * and measured once its change time is 3 s old: the read ledger hashes a file changed in the
 * last 3 s (a write in the same clock tick leaves its times unchanged), which a file an agent
 * reads has seldom just become. `--lines 515` gives
 * 17 kB of numbered lines: over the default 10 kB output budget, so the runtime also cuts the
 * output to the budget, which the raw read does not.
 */
import { open, readFile, realpath, rm, stat, mkdtemp, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { type Build, cpuRecorder, flag, interleaved, loadBuilds, machineLine } from "./lib/builds.js";
import { NO_LOOP_DETECTION } from "./lib/tools.js";

const reps = Number(flag("reps", "7"));
const LINES = Number(flag("lines", "100"));
const PER_SAMPLE = 200;
const dir = await mkdtemp(path.join(os.tmpdir(), "bench-read-file-"));
const file = path.join(dir, "a.ts");
await writeFile(file, Array.from({ length: LINES }, (_, i) => `const line${i} = ${i}; // some text`).join("\n"));
const aMinuteAgo = new Date(Date.now() - 60_000);
await utimes(file, aMinuteAgo, aMinuteAgo);
// `utimes` sets the change time to now: until it is 3 s old the ledger hashes every read.
await new Promise((resolve) => setTimeout(resolve, 3_100));
const { base, next } = await loadBuilds();

async function reader(lib: Build): Promise<{ run: () => Promise<void>; close: () => Promise<void> }> {
  const router = await lib.createToolRouter({ ...NO_LOOP_DETECTION });
  const turn = lib.createTurnContext({ cwd: dir });
  let n = 0;
  return {
    run: async () => {
      for (let i = 0; i < PER_SAMPLE; i++) {
        const runtime = new lib.ToolCallRuntime(router, turn);
        const args = JSON.stringify({ file_path: file, limit: 2000 });
        runtime.submit({ type: "function_call", call_id: `r${++n}`, name: "read_file", arguments: args });
        const [item] = await runtime.drain();
        const out = (item as { output: string }).output;
        if (!out.includes(`L${LINES}: `)) throw new Error(`read_file failed: ${out.slice(0, 200)}`);
      }
    },
    close: () => router.close(),
  };
}
const readers = [await reader(base), await reader(next)];
const cpu = cpuRecorder(PER_SAMPLE);
try {
  process.stdout.write(`${machineLine()}\nread_file ${LINES} lines, ${PER_SAMPLE} calls a sample, ${reps} reps\n`);
  const rows = await interleaved(
    [
      cpu.contender("base", (readers[0] as { run: () => Promise<void> }).run),
      cpu.contender("new", (readers[1] as { run: () => Promise<void> }).run),
      cpu.contender("raw readFile + numbering", async () => {
        for (let i = 0; i < PER_SAMPLE; i++) {
          const text = await readFile(file, "utf8");
          if (!text.split("\n").map((l, j) => `L${j + 1}: ${l}`)[0]) throw new Error("empty");
        }
      }),
      cpu.contender("checked read floor", async () => {
        for (let i = 0; i < PER_SAMPLE; i++) {
          await Promise.all([realpath(file), stat(file)]);
          const handle = await open(file, "r");
          const size = (await handle.stat()).size;
          const { buffer, bytesRead } = await handle.read(Buffer.allocUnsafe(size + 1), 0, size + 1, 0);
          await handle.close();
          const text = buffer.toString("utf8", 0, bytesRead);
          if (!text.split("\n").map((l, j) => `L${j + 1}: ${l}`)[0]) throw new Error("empty");
        }
      }),
    ],
    reps,
    2,
  );
  const raw = rows.get("raw readFile + numbering")?.median ?? NaN;
  const rawCpu = cpu.summary("raw readFile + numbering", reps).median;
  for (const [id, row] of rows) {
    const c = cpu.summary(id, reps);
    process.stdout.write(
      `${id}: wall ${((row.median / PER_SAMPLE) * 1000).toFixed(0)} µs/call (${(row.median / raw).toFixed(2)}x), ` +
        `CPU ${c.median.toFixed(0)} µs/call [${c.p25.toFixed(0)}–${c.p75.toFixed(0)}] (${(c.median / rawCpu).toFixed(2)}x)\n`,
    );
  }
  process.stdout.write("target: new <= 1.5x the raw read\n");
  process.stdout.write(`${machineLine()}\n`);
} finally {
  await Promise.all(readers.map((r) => r.close()));
  await rm(dir, { recursive: true, force: true });
}
