import { cp, mkdir, symlink, utimes, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  createExecEnvironment,
  type ExecEnvironment,
  type FileOps,
  type ToolRegistration,
} from "../../../src/index.js";
import { GLOB_SPEC, GlobHandler, GREP_FILES_SPEC, GrepFilesHandler } from "../../../src/subpaths/handlers.js";
import { findRipgrep } from "../../../src/handlers/grep_files/ripgrep.js";
import { localFileOps } from "../../../src/sandbox/index.js";
import { callTool, useTempDir } from "../toolHarness.js";

const rgPath = await findRipgrep();
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../../..");

let dir: string;
useTempDir((d) => (dir = d));

const grepTools = (ripgrep: string | false): ToolRegistration[] => [
  { spec: GREP_FILES_SPEC, handler: new GrepFilesHandler({ ripgrep }), supportsParallel: true },
];
const globTools = (ripgrep: string | false, limit?: number): ToolRegistration[] => [
  {
    spec: GLOB_SPEC,
    handler: new GlobHandler({ ripgrep, ...(limit !== undefined && { limit }) }),
    supportsParallel: true,
  },
];

/**
 * A real tree: this repository's own src/ and docs/ inside a git repository, plus the ignore
 * rules and file kinds where a walker can part from ripgrep. Modification times are spread
 * (deterministically) so that every limit cuts somewhere.
 */
async function realTree(): Promise<void> {
  await mkdir(join(dir, ".git/info"), { recursive: true });
  await cp(join(repoRoot, "src"), join(dir, "src"), { recursive: true });
  await cp(join(repoRoot, "docs"), join(dir, "docs"), { recursive: true });
  const extra: Array<[string, string | Buffer]> = [
    [".git/info/exclude", "excluded-by-info.txt\n"],
    [".gitignore", "*.log\nbuild/\n/root-only.txt\ntmp/\n**/gen/**\n"],
    ["src/.gitignore", "!important.log\n"],
    ["src/handlers/.ignore", "*.snap\n"],
    ["docs/.rgignore", "draft-*.md\n"],
    ["excluded-by-info.txt", "needle7731\n"],
    ["debug.log", "needle7731\n"],
    ["src/important.log", "needle7731\n"],
    ["UPPER.LOG", "needle7731\n"],
    ["build/out.js", "needle7731\n"],
    ["root-only.txt", "needle7731\n"],
    ["sub/root-only.txt", "needle7731\n"],
    ["tmp", "needle7731: a file named like a dir-only rule\n"],
    ["a/gen/deep/x.ts", "needle7731\n"],
    ["src/handlers/x.snap", "needle7731\n"],
    ["docs/draft-plan.md", "needle7731\n"],
    [".github/workflows/ci.yml", "needle7731\n"],
    [".env", "needle7731\n"],
    ["node_modules/dep/index.js", "needle7731\n"],
    ["vendor/node_modules/x.js", "needle7731\n"],
    ["crlf.txt", "needle7731\r\nfoo\r\n"],
    ["split.txt", "foo\nbar\n"],
    ["joined.txt", "foo bar\n"],
    ["image.bin", Buffer.concat([Buffer.from("needle7731\n"), Buffer.alloc(16)])],
  ];
  for (const [rel, content] of extra) {
    await mkdir(dirname(join(dir, rel)), { recursive: true });
    await writeFile(join(dir, rel), content);
  }
  await symlink(join(dir, "joined.txt"), join(dir, "link.txt"));
  // Distinct times in a scrambled order: the files' names say nothing about their age.
  const all: string[] = [];
  const collect = async (d: string): Promise<void> => {
    const { readdir } = await import("node:fs/promises");
    for (const e of await readdir(d, { withFileTypes: true })) {
      if (e.isDirectory()) await collect(join(d, e.name));
      else if (e.isFile()) all.push(join(d, e.name));
    }
  };
  await collect(dir);
  all.sort();
  for (const [i, path] of all.entries()) {
    const t = 1_700_000_000 + ((i * 7919) % all.length) * 10;
    await utimes(path, t, t);
  }
}

// Runs only where `rg` is installed (.ci/run installs it): the point is to compare the two.
describe.skipIf(rgPath === null)("grep_files and glob list the same files with rg and without", () => {
  it("grep_files: same paths, same order, same cut, on a real tree", async () => {
    await realTree();
    const cases: Array<Record<string, unknown>> = [
      { pattern: "needle7731" },
      { pattern: "needle7731$" },
      { pattern: "^foo\\s+bar$" },
      { pattern: "(?i)FUNCTION" },
      { pattern: "export (async )?function", limit: 7 },
      { pattern: "import", limit: 1 },
      { pattern: "import", limit: 2000 },
      { pattern: "signal", include: "*.{ts,md}", limit: 25 },
      { pattern: "needle7731", include: "!src" },
      { pattern: "needle7731", path: "src" },
      { pattern: "zz-no-such-text-zz" },
    ];
    let nonEmpty = 0;
    for (const args of cases) {
      const js = await callTool(grepTools(false), "grep_files", args, { cwd: dir });
      const rg = await callTool(grepTools(rgPath as string), "grep_files", args, { cwd: dir });
      expect({ args, text: js.text }).toEqual({ args, text: rg.text });
      if (js.success) nonEmpty++;
    }
    expect(nonEmpty).toBe(cases.length - 1);
    // The ignore rules did cut: the tree has matches that neither lists.
    const all = (await callTool(grepTools(false), "grep_files", { pattern: "needle7731" }, { cwd: dir })).text;
    expect(
      all
        .split("\n")
        .map((p) => relative(dir, p))
        .sort(),
    ).toEqual(["UPPER.LOG", "crlf.txt", "src/important.log", "sub/root-only.txt", "tmp"].sort());
  });

  it("glob: same paths, same order, same cut, on a real tree", async () => {
    await realTree();
    const cases: Array<[Record<string, unknown>, number | undefined]> = [
      [{ pattern: "**/*.ts" }, undefined],
      [{ pattern: "**/*.ts" }, 2000],
      [{ pattern: "*.md" }, 5],
      [{ pattern: "src/**/*.{ts,js}" }, 2000],
      [{ pattern: "*.log" }, undefined],
      [{ pattern: ".github/**" }, undefined],
      [{ pattern: "**/.*" }, undefined],
      [{ pattern: "*" }, 2000],
    ];
    for (const [args, limit] of cases) {
      const js = await callTool(globTools(false, limit), "glob", args, { cwd: dir });
      const rg = await callTool(globTools(rgPath as string, limit), "glob", args, { cwd: dir });
      expect({ args, text: js.text }).toEqual({ args, text: rg.text });
      expect(js.success).toBe(true);
    }
  });
});

describe("grep_files' JS search", () => {
  it("reads several files at once", async () => {
    for (let i = 0; i < 8; i++) await writeFile(join(dir, `f${i}.txt`), i === 5 ? "needle\n" : "hay\n");
    // A barrier: no read answers before four are in flight, so a one-at-a-time search never ends.
    let inFlight = 0;
    let peak = 0;
    let release!: () => void;
    const barrier = new Promise<void>((resolve) => (release = resolve));
    const files: FileOps = {
      ...localFileOps,
      read: async (path, opts) => {
        if (!path.endsWith(".txt")) return localFileOps.read(path, opts); // the ignore files
        peak = Math.max(peak, ++inFlight);
        if (peak >= 4) release();
        await barrier;
        inFlight--;
        return localFileOps.read(path, opts);
      },
    };
    // The environment's own methods, its files read through the barrier.
    const base = await createExecEnvironment({ cwd: dir });
    const environment = Object.assign(Object.create(base) as ExecEnvironment, { files });
    const out = await callTool(grepTools(false), "grep_files", { pattern: "needle" }, { cwd: dir, environment });
    expect(out.text).toBe(join(dir, "f5.txt"));
    expect(peak).toBeGreaterThanOrEqual(4);
  });
});
