import { spawn } from "node:child_process";
import { mkdir, readFile, utimes, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GREP_FILES_SPEC, GrepFilesHandler, type GrepFilesOptions } from "../../../src/handlers/grep_files/handler.js";
import { findRipgrep } from "../../../src/handlers/grep_files/ripgrep.js";
import type { ToolRegistration, TurnContext } from "../../../src/index.js";
import { callTool, tempDir } from "../toolHarness.js";
import { processAlive } from "../../../src/process/index.js";
import { createExecEnvironment } from "../../../src/sandbox/index.js";

// CI installs ripgrep (.ci/run); without it only the JS fallback runs here.
const rgPath = await findRipgrep();

const toolsWith = (opts: GrepFilesOptions): ToolRegistration[] => [
  { spec: GREP_FILES_SPEC, handler: new GrepFilesHandler(opts), supportsParallel: true },
];

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

/** Writes files with distinct modification times: later entries are newer. */
async function files(entries: Array<[string, string | Buffer]>): Promise<void> {
  let t = 1_700_000_000;
  for (const [rel, content] of entries) {
    const path = join(dir, rel);
    await mkdir(join(path, ".."), { recursive: true });
    await writeFile(path, content);
    await utimes(path, t, t);
    t += 100;
  }
}

// The ripgrep rows skip only where `rg` is not installed (a developer machine); .ci/run
// installs ripgrep, so CI runs both backends on every case.
const backends: Array<[string, GrepFilesOptions, boolean]> = [
  ["JS fallback", { ripgrep: false }, false],
  ["ripgrep", { ripgrep: rgPath ?? "rg" }, rgPath === null],
];

describe.each(backends)("grep_files with %s", (_name, opts, skip) => {
  const grep = (args: unknown, turn: Partial<TurnContext> = { cwd: dir }) =>
    callTool(toolsWith(opts), "grep_files", args, turn);

  // skip: the ripgrep row only, where `rg` is not installed; .ci/run installs it.
  it.skipIf(skip)("lists matching files newest first", async () => {
    await files([
      ["old.txt", "needle here\n"],
      ["src/mid.ts", "const x = 'needle';\n"],
      ["none.txt", "hay only\n"],
      ["new.md", "a\nNEEDLE? no\nneedle yes\n"],
    ]);
    const out = await grep({ pattern: "needle", path: dir });
    expect(out.success).toBe(true);
    expect(out.text).toBe([join(dir, "new.md"), join(dir, "src/mid.ts"), join(dir, "old.txt")].join("\n"));
  });

  // skip: the ripgrep row only, where `rg` is not installed; .ci/run installs it.
  it.skipIf(skip)("matches regular expressions line by line", async () => {
    await files([
      ["a.txt", "foo\nbar\n"],
      ["b.txt", "foo bar\n"],
      ["c.txt", "FOO-BAR\n"],
    ]);
    expect((await grep({ pattern: "^foo\\s+bar$" })).text).toBe(join(dir, "b.txt"));
    expect((await grep({ pattern: "(?i)foo.bar" })).text).toBe([join(dir, "c.txt"), join(dir, "b.txt")].join("\n"));
  });

  // skip: the ripgrep row only, where `rg` is not installed; .ci/run installs it.
  it.skipIf(skip)("filters by include glob, resolves a relative path against cwd, honours limit", async () => {
    await files([
      ["pkg/a.ts", "hit\n"],
      ["pkg/b.tsx", "hit\n"],
      ["pkg/c.js", "hit\n"],
      ["other/d.ts", "hit\n"],
    ]);
    expect((await grep({ pattern: "hit", include: "*.{ts,tsx}", path: "pkg" })).text).toBe(
      [join(dir, "pkg/b.tsx"), join(dir, "pkg/a.ts")].join("\n"),
    );
    expect((await grep({ pattern: "hit", include: "*.ts" })).text).toBe(
      [join(dir, "other/d.ts"), join(dir, "pkg/a.ts")].join("\n"),
    );
    expect((await grep({ pattern: "hit", limit: 1 })).text).toBe(join(dir, "other/d.ts"));
  });

  // skip: the ripgrep row only, where `rg` is not installed; .ci/run installs it.
  it.skipIf(skip)("skips hidden files, .git, node_modules, binary files and what .gitignore ignores", async () => {
    await files([
      [".git/HEAD", "ref: needle\n"],
      [".hidden.txt", "needle\n"],
      ["node_modules/dep/index.js", "needle\n"],
      ["build/out.js", "needle\n"],
      ["debug.log", "needle\n"],
      ["keep.log", "needle\n"],
      ["image.bin", Buffer.concat([Buffer.from("needle\n"), Buffer.alloc(16), Buffer.from("needle\n")])],
      [".gitignore", "build/\n*.log\n!keep.log\n"],
      ["src/main.c", "needle\n"],
    ]);
    const out = await grep({ pattern: "needle" });
    expect(out.text).toBe([join(dir, "src/main.c"), join(dir, "keep.log")].join("\n"));
  });

  // skip: the ripgrep row only, where `rg` is not installed; .ci/run installs it.
  it.skipIf(skip)("searches a single file given as path", async () => {
    await files([
      ["one.txt", "needle\n"],
      ["two.txt", "needle\n"],
    ]);
    expect((await grep({ pattern: "needle", path: join(dir, "one.txt") })).text).toBe(join(dir, "one.txt"));
  });

  // skip: the ripgrep row only, where `rg` is not installed; .ci/run installs it.
  it.skipIf(skip)("answers `No matches found.` as a failure", async () => {
    await files([["a.txt", "nothing\n"]]);
    const out = await grep({ pattern: "needle" });
    expect(out.success).toBe(false);
    expect(out.text).toBe("No matches found.");
  });

  // skip: the ripgrep row only, where `rg` is not installed; .ci/run installs it.
  it.skipIf(skip)("names bad arguments", async () => {
    expect((await grep({ pattern: "  " })).text).toBe("pattern must not be empty");
    expect((await grep({ pattern: "x", limit: 0 })).text).toBe("limit must be greater than zero");
    const missing = join(dir, "missing");
    const out = await grep({ pattern: "x", path: "missing" });
    expect(out.success).toBe(false);
    expect(out.text).toMatch(new RegExp(`^unable to access \`${missing}\`: ENOENT`));
  });
});

describe("grep_files", () => {
  it("reports an invalid pattern from the JS fallback", async () => {
    await writeFile(join(dir, "a.txt"), "x\n");
    const out = await callTool(toolsWith({ ripgrep: false }), "grep_files", { pattern: "(unclosed" }, { cwd: dir });
    expect(out.success).toBe(false);
    expect(out.text).toMatch(/^invalid pattern: /);
  });

  it("kills rg when it outlives the timeout", async () => {
    // A stand-in rg that never answers and records its pid.
    const slow = join(dir, "slow-rg");
    await writeFile(slow, `#!/bin/sh\necho $$ > '${dir}/rg.pid'\nexec sleep 30\n`, { mode: 0o755 });
    const out = await callTool(
      toolsWith({ ripgrep: slow, timeoutMs: 200 }),
      "grep_files",
      { pattern: "x" },
      // The pid it records is the host's only without a PID namespace to renumber it.
      { cwd: dir, environment: await createExecEnvironment({ cwd: dir, pidNamespace: false }) },
    );
    expect(out.success).toBe(false);
    expect(out.text).toBe("rg timed out after 0.2 seconds");
    expect(processAlive(Number(await readFile(join(dir, "rg.pid"), "utf8")))).toBe(false);
  });

  it("refuses a FIFO at once instead of blocking on it", async () => {
    const fifo = join(dir, "never-written");
    await new Promise((r) => spawn("mkfifo", [fifo]).on("close", r));
    const out = await callTool(toolsWith({}), "grep_files", { pattern: "x", path: fifo }, { cwd: dir });
    expect(out).toMatchObject({ success: false, text: `${fifo} is not a regular file` });
  });

  it.skipIf(rgPath === null)("says why rg failed", async () => {
    await writeFile(join(dir, "a.txt"), "x\n");
    const out = await callTool(toolsWith({ ripgrep: rgPath! }), "grep_files", { pattern: "(unclosed" }, { cwd: dir });
    expect(out.success).toBe(false);
    expect(out.text).toMatch(/^rg failed: regex parse error/);
  });

  it("looks rg up on PATH, so a PATH without it selects the JS search", async () => {
    expect(await findRipgrep(dir)).toBeNull();
    if (rgPath) expect(await findRipgrep(`${dir}:${dirname(rgPath)}`)).toBe(rgPath);
  });

  it("says when the configured rg cannot be launched", async () => {
    const bogus = join(dir, "no-such-rg");
    const out = await callTool(toolsWith({ ripgrep: bogus }), "grep_files", { pattern: "x" }, { cwd: dir });
    expect(out.text).toMatch(new RegExp(`^failed to launch ripgrep at \`${bogus}\`: `));
  });
});
