/**
 * `npm run build && npx tsx bench/search.ts [--reps N] [--base DIST] [--tree DIR]`: grep_files
 * and glob on a big tree (default: a hard-linked copy of node_modules under another name, about
 * 17k files), base build vs this one, with and without ripgrep, beside raw `rg`; interleaved.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { type Build, callWith, flag, interleaved, loadBuilds, machineLine } from "./lib/builds.js";

const run = promisify(execFile);
const reps = Number(flag("reps", "5"));
const PATTERN = flag("pattern", "Licensed under the Apache License");
const GLOB = "**/*.d.ts";

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
try {
  const files = (await run(rg, ["--files", tree], { maxBuffer: 1 << 28 })).stdout.split("\n").length - 1;
  const hits = (await run(rg, ["-l", PATTERN, tree], { maxBuffer: 1 << 28 })).stdout.split("\n").length - 1;
  process.stdout.write(`${machineLine()}\ntree ${tree}: ${files} files, ${hits} match ${JSON.stringify(PATTERN)}\n`);
  process.stdout.write(`\ngrep_files, ${reps} reps\n`);
  await interleaved(
    [
      { id: "base JS fallback", run: grep(base, false) },
      { id: "new JS fallback", run: grep(next, false) },
      { id: "new with rg", run: grep(next, rg) },
      { id: "raw rg -l", run: () => run(rg, ["-l", PATTERN, tree], { maxBuffer: 1 << 28 }).then(() => undefined) },
    ],
    reps,
  );
  process.stdout.write(`\nglob ${GLOB}, ${reps} reps\n`);
  await interleaved(
    [
      { id: "base (JS walk)", run: glob(base, undefined) },
      { id: "new (rg --files)", run: glob(next, rg) },
      { id: "new JS walk", run: glob(next, false) },
      {
        id: "raw rg --files -g '*.d.ts'",
        run: () => run(rg, ["--files", "-g", "*.d.ts", tree], { maxBuffer: 1 << 28 }).then(() => undefined),
      },
    ],
    reps,
  );
} finally {
  if (scratch !== "") await rm(scratch, { recursive: true, force: true });
}
