/**
 * `npm run build && npx tsx bench/search.ts [--reps N] [--base DIST] [--tree DIR] [--only grep|glob]`:
 * grep_files and glob on a big tree (default: a hard-linked copy of node_modules under another
 * name, about 17k files), base build vs this one, with and without ripgrep, beside raw `rg`;
 * interleaved. glob also runs beside the floor of any JS walk: `readdir` with file types, 8
 * directories at once, no ignore rules, then a `stat` of each match (glob lists newest first).
 */
import { execFile } from "node:child_process";
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { type Build, callWith, flag, interleaved, loadBuilds, machineLine } from "./lib/builds.js";

const run = promisify(execFile);
const reps = Number(flag("reps", "5"));
const PATTERN = flag("pattern", "Licensed under the Apache License");
const GLOB = "**/*.d.ts";
const only = flag("only", "");

const { base, next } = await loadBuilds();
const own = flag("tree", "");
const scratch = own === "" ? await mkdtemp(path.join(os.tmpdir(), "bench-search-")) : "";
const tree = own || path.join(scratch, "tree");
if (own === "") await run("cp", ["-al", path.resolve("node_modules"), tree]);
const rg = (await run("sh", ["-c", "command -v rg"])).stdout.trim();

const grep = (lib: Build, ripgrep: string | false) => async () => {
  const reg = { spec: lib.GREP_FILES_SPEC, handler: new lib.GrepFilesHandler({ ripgrep, timeoutMs: 600_000 }) };
  const out = await callWith(
    lib,
    [{ ...reg, supportsParallel: true }],
    "grep_files",
    { pattern: PATTERN },
    { cwd: tree },
  );
  if (!out.text.startsWith("/")) throw new Error(`grep_files failed: ${out.text.slice(0, 200)}`);
};
const glob = (lib: Build, ripgrep: string | false | undefined) => async () => {
  const handler = new lib.GlobHandler({ timeoutMs: 600_000, ...(ripgrep !== undefined && { ripgrep }) });
  const reg = { spec: lib.GLOB_SPEC, handler, supportsParallel: true };
  const out = await callWith(lib, [reg], "glob", { pattern: GLOB, path: tree }, {});
  if (!out.text.startsWith("/")) throw new Error(`glob failed: ${out.text.slice(0, 200)}`);
};
/** The floor of a JS walk: what any glob in Node must do, and nothing else. */
async function bareWalk(): Promise<void> {
  const found: string[] = [];
  const queue = [tree];
  let running = 0;
  await new Promise<void>((resolve, reject) => {
    const pump = (): void => {
      while (running < 8 && queue.length > 0) {
        const dir = queue.pop() as string;
        running++;
        readdir(dir, { withFileTypes: true }).then((entries) => {
          running--;
          for (const e of entries) {
            if (e.name.startsWith(".") || e.name === "node_modules") continue;
            if (e.isDirectory()) queue.push(`${dir}/${e.name}`);
            else if (e.isFile() && e.name.endsWith(".d.ts")) found.push(`${dir}/${e.name}`);
          }
          if (running === 0 && queue.length === 0) resolve();
          else pump();
        }, reject);
      }
    };
    pump();
  });
  for (let i = 0; i < found.length; i += 32) await Promise.all(found.slice(i, i + 32).map((p) => stat(p)));
  if (found.length === 0) throw new Error("bare walk found nothing");
}

try {
  const files = (await run(rg, ["--files", tree], { maxBuffer: 1 << 28 })).stdout.split("\n").length - 1;
  const hits = (await run(rg, ["-l", PATTERN, tree], { maxBuffer: 1 << 28 })).stdout.split("\n").length - 1;
  process.stdout.write(`${machineLine()}\ntree ${tree}: ${files} files, ${hits} match ${JSON.stringify(PATTERN)}\n`);
  if (only !== "glob") process.stdout.write(`\ngrep_files, ${reps} reps\n`);
  if (only !== "glob")
    await interleaved(
      [
        { id: "base JS fallback", run: grep(base, false) },
        { id: "new JS fallback", run: grep(next, false) },
        { id: "new with rg", run: grep(next, rg) },
        { id: "raw rg -l", run: () => run(rg, ["-l", PATTERN, tree], { maxBuffer: 1 << 28 }).then(() => undefined) },
      ],
      reps,
    );
  if (only !== "grep") process.stdout.write(`\nglob ${GLOB}, ${reps} reps\n`);
  if (only !== "grep")
    await interleaved(
      [
        { id: "base (JS walk)", run: glob(base, undefined) },
        { id: "new (rg --files)", run: glob(next, rg) },
        { id: "new JS walk", run: glob(next, false) },
        {
          id: "raw rg --files -g '*.d.ts'",
          run: () => run(rg, ["--files", "-g", "*.d.ts", tree], { maxBuffer: 1 << 28 }).then(() => undefined),
        },
        { id: "bare JS walk + stat", run: bareWalk },
      ],
      reps,
    );
} finally {
  if (scratch !== "") await rm(scratch, { recursive: true, force: true });
}
