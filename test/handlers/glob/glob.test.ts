import { mkdir, utimes, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { GLOB_SPEC, GlobHandler, type GlobOptions } from "../../../src/subpaths/handlers.js";
import { type ToolRegistration } from "../../../src/index.js";
import { splitPattern } from "../../../src/handlers/glob/handler.js";
import { findRipgrep } from "../../../src/handlers/grep_files/ripgrep.js";
import { callTool, useTempDir } from "../toolHarness.js";

let dir: string;
useTempDir((d) => (dir = d));

const toolsWith = (opts: GlobOptions = {}): ToolRegistration[] => [
  { spec: GLOB_SPEC, handler: new GlobHandler(opts), supportsParallel: true },
];

// CI installs ripgrep (.ci/run); without it only the JS walk runs here.
const rgPath = await findRipgrep();
const backends: Array<[string, GlobOptions, boolean]> = [
  ["the JS walk", { ripgrep: false }, false],
  ["rg --files", { ripgrep: rgPath ?? "rg" }, rgPath === null],
];

/** Writes files with distinct modification times: later entries are newer. */
async function files(...paths: string[]): Promise<void> {
  let t = 1_700_000_000;
  for (const rel of paths) {
    const path = join(dir, rel);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, rel);
    await utimes(path, t, t);
    t += 100;
  }
}

const abs = (...rels: string[]): string => rels.map((r) => join(dir, r)).join("\n");

describe.each(backends)("glob with %s", (_name, backend, skip) => {
  const glob = (args: unknown, opts: GlobOptions = {}) =>
    callTool(toolsWith({ ...backend, ...opts }), "glob", args, { cwd: dir });

  // skip: the rg row only, where `rg` is not installed; .ci/run installs it.
  it.skipIf(skip)("lists matching files newest first, as absolute paths", async () => {
    await files("old.ts", "src/mid.ts", "src/readme.md", "src/deep/new.ts");
    const out = await glob({ pattern: "**/*.ts" });
    expect(out).toMatchObject({ success: true, text: abs("src/deep/new.ts", "src/mid.ts", "old.ts") });
  });

  // skip: the rg row only, where `rg` is not installed; .ci/run installs it.
  it.skipIf(skip)("matches a pattern without a slash at any depth, one with a slash from the path", async () => {
    await files("a.ts", "src/b.ts", "src/lib/c.ts", "other/src/d.ts");
    expect((await glob({ pattern: "*.ts" })).text).toBe(abs("other/src/d.ts", "src/lib/c.ts", "src/b.ts", "a.ts"));
    expect((await glob({ pattern: "src/*.ts" })).text).toBe(abs("src/b.ts"));
    expect((await glob({ pattern: "src/**/*.ts" })).text).toBe(abs("src/lib/c.ts", "src/b.ts"));
    expect((await glob({ pattern: "*.ts", path: join(dir, "src") })).text).toBe(abs("src/lib/c.ts", "src/b.ts"));
    expect((await glob({ pattern: "*.ts", path: "other" })).text).toBe(abs("other/src/d.ts"));
    expect((await glob({ pattern: `${dir}/src/lib/*.{ts,js}` })).text).toBe(abs("src/lib/c.ts"));
  });

  // skip: the rg row only, where `rg` is not installed; .ci/run installs it.
  it.skipIf(skip)("leaves out what .gitignore (in a git repository), .ignore and node_modules exclude", async () => {
    await mkdir(join(dir, ".git"));
    await files(
      ".gitignore",
      "keep.js",
      "dist/bundle.js",
      "node_modules/pkg/index.js",
      "gen/.ignore",
      "gen/out.js",
      "gen/kept.js",
    );
    await writeFile(join(dir, ".gitignore"), "dist/\n");
    await writeFile(join(dir, "gen/.ignore"), "out.js\n");
    expect((await glob({ pattern: "**/*.js" })).text).toBe(abs("gen/kept.js", "keep.js"));
  });

  // skip: the rg row only, where `rg` is not installed; .ci/run installs it.
  it.skipIf(skip)("walks hidden entries only when the pattern names one", async () => {
    await files("visible.yml", ".github/workflows/ci.yml", ".env");
    expect((await glob({ pattern: "**/*.yml" })).text).toBe(abs("visible.yml"));
    expect((await glob({ pattern: ".github/**/*.yml" })).text).toBe(abs(".github/workflows/ci.yml"));
    expect((await glob({ pattern: ".env" })).text).toBe(abs(".env"));
  });

  // skip: the rg row only, where `rg` is not installed; .ci/run installs it.
  it.skipIf(skip)("lists at most the limit, newest first, and says there are more", async () => {
    const names = Array.from({ length: 105 }, (_, i) => `f${String(i).padStart(3, "0")}.txt`);
    await files(...names);
    const out = await glob({ pattern: "*.txt" });
    const lines = out.text.split("\n");
    expect(lines).toHaveLength(101);
    expect(lines[0]).toBe(join(dir, "f104.txt"));
    expect(lines[99]).toBe(join(dir, "f005.txt"));
    expect(lines[100]).toBe(
      "(100 of 105 matching files shown, the most recently modified; use a more specific pattern or path to see the others)",
    );
    expect((await glob({ pattern: "*.txt" }, { limit: 3 })).text.split("\n")).toHaveLength(4);
  });

  // skip: the rg row only, where `rg` is not installed; .ci/run installs it.
  it.skipIf(skip)("answers no match, a missing path and a file as path", async () => {
    await files("a.txt");
    expect(await glob({ pattern: "*.rs" })).toMatchObject({ success: false, text: "No files found." });
    expect((await glob({ pattern: "*", path: "missing" })).text).toMatch(/^unable to access `.*missing`: /);
    expect((await glob({ pattern: "*", path: "a.txt" })).text).toBe(`\`${join(dir, "a.txt")}\` is not a directory`);
    expect((await glob({ pattern: "!*.txt" })).success).toBe(false);
    expect((await glob({ pattern: " " })).text).toBe("pattern must not be empty");
  });
});

describe("glob", () => {
  it("splits a pattern into the directory it names and the rest", () => {
    expect(splitPattern("*.ts")).toEqual({ dir: "", rest: "*.ts" });
    expect(splitPattern("src/lib/**/*.ts")).toEqual({ dir: "src/lib", rest: "/**/*.ts" });
    expect(splitPattern("src/index.ts")).toEqual({ dir: "src", rest: "/index.ts" });
    expect(splitPattern("/abs/*.ts")).toEqual({ dir: "/abs", rest: "/*.ts" });
    expect(splitPattern("/*.ts")).toEqual({ dir: "/", rest: "/*.ts" });
    expect(splitPattern("**/x/*.ts")).toEqual({ dir: "", rest: "/**/x/*.ts" });
  });
});
