import { isAbsolute, join, relative, resolve } from "node:path";
import { FunctionCallError, type FunctionToolSpec, type ToolOutput } from "../../protocol/index.js";
import type { PolicySubject, ToolFactory, ToolHandler, ToolInvocation } from "../../registry/index.js";
import { environmentOf, filesOf } from "../../sandbox/index.js";
import { deadline } from "../../turn/index.js";
import { errorMessage, formatSecondsExact } from "../../util/index.js";
import { compileGlob, findRipgrep, newestFirst, ripgrepPaths, toSlash, walkFiles } from "../grep_files/index.js";

const DEFAULT_LIMIT = 100;
const DEFAULT_TIMEOUT_MS = 30_000;

export const GLOB_SPEC: FunctionToolSpec = {
  type: "function",
  annotations: { readOnlyHint: true },
  name: "glob",
  description: [
    "Finds files by name with a glob pattern and lists them newest first, as absolute paths.",
    '- Patterns like "**/*.ts", "src/**/*.{ts,tsx}" or "*.md"; a pattern without a `/` matches file names at any depth.',
    "- Files ignored by .gitignore or .ignore, node_modules, and hidden files (unless the pattern names one, like `.github/**`) are left out.",
    `- At most ${DEFAULT_LIMIT} paths; narrow the pattern or the path when there are more.`,
  ].join("\n"),
  strict: false,
  parameters: {
    type: "object",
    properties: {
      pattern: { type: "string", description: "The glob pattern to match files against" },
      path: {
        type: "string",
        description: "Directory to search in. Defaults to the session's working directory.",
      },
    },
    required: ["pattern"],
    additionalProperties: false,
  },
};

interface GlobArgs {
  pattern: string;
  path?: string;
}

export interface GlobOptions {
  /** Paths listed at most; default 100. */
  limit?: number;
  /** Default 30 s. */
  timeoutMs?: number;
  /**
   * `rg` to list the files with (`true`: the one on `PATH`), or `false` (default) for the JS walk:
   * measured on 16.8k files, the walk took 0.4-0.5 s and `rg --files` through the turn's
   * environment 0.9-1.2 s (a process start per call, 16.8k lines parsed), so rg is opt-in.
   */
  ripgrep?: string | boolean;
}

const fail = (message: string): FunctionCallError => FunctionCallError.respondToModel(message);

const GLOB_CHARS = /[*?[{\\]/;

/**
 * A pattern split into the directory its leading plain segments name (`src/lib` of
 * `src/lib/**\/*.ts`; absolute when the pattern is) and the rest, anchored to that directory.
 * A pattern without a `/` matches names at any depth and has no directory.
 */
export function splitPattern(pattern: string): { dir: string; rest: string } {
  if (!pattern.includes("/")) return { dir: "", rest: pattern };
  const segments = pattern.split("/");
  let plain = 0;
  while (plain < segments.length - 1 && !GLOB_CHARS.test(segments[plain] as string)) plain++;
  const dir = segments.slice(0, plain).join("/") || (pattern.startsWith("/") ? "/" : "");
  return { dir, rest: `/${segments.slice(plain).join("/")}` };
}

/** Does a segment of the pattern name hidden entries (`.github`, `.env*`)? Then they are walked. */
const namesHidden = (pattern: string): boolean =>
  pattern.split("/").some((s) => s.startsWith(".") && s !== "." && s !== "..");

/**
 * `glob`: files whose path under `path` (default the turn's cwd) matches a glob, newest first,
 * as absolute paths (as grep_files lists them). The files are grep_files' walk's (ripgrep's
 * ignore rules), or those `rg --files` lists with `ripgrep`; the glob dialect is ripgrep's
 * `--glob`, matched here for both. Read-only and parallel.
 */
export class GlobHandler implements ToolHandler {
  readonly kind = "function" as const;

  constructor(private readonly opts: GlobOptions = {}) {}

  /** The directory walked: `path` (default the cwd) joined with the pattern's plain leading directories. */
  policySubject(inv: ToolInvocation): PolicySubject {
    const { pattern, path } = inv.args as GlobArgs;
    const where = path ?? ".";
    const { dir } = splitPattern(pattern);
    const walked = dir === "" ? where : isAbsolute(dir) ? dir : join(where, dir);
    return { paths: [walked], summary: `glob ${JSON.stringify(pattern)} in ${where}` };
  }

  async handle(inv: ToolInvocation): Promise<ToolOutput> {
    const args = inv.args as GlobArgs;
    const pattern = args.pattern.trim();
    if (pattern === "") throw fail("pattern must not be empty");
    if (pattern.startsWith("!")) throw fail("pattern must not be negated (`!`): glob lists the files that match it");
    const { dir, rest } = splitPattern(pattern);
    let rule;
    try {
      rule = compileGlob(rest);
    } catch (err) {
      throw fail(`invalid pattern: ${errorMessage(err)}`);
    }
    const base = resolve(inv.turn.cwd, args.path ?? ".");
    const root = resolve(base, dir);
    const env = environmentOf(inv.turn);
    await env.checkRead(root, { cwd: inv.turn.cwd });
    const files = filesOf(inv.turn);
    let info;
    try {
      info = await files.stat(root);
    } catch (err) {
      throw fail(`unable to access \`${root}\`: ${errorMessage(err)}`);
    }
    if (info.kind !== "directory") throw fail(`\`${root}\` is not a directory`);

    const limit = this.opts.limit ?? DEFAULT_LIMIT;
    const timeoutMs = this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const time = deadline(inv.signal, timeoutMs);
    const found: string[] = [];
    let shown: string[];
    try {
      const hidden = namesHidden(rest);
      const { ripgrep = false } = this.opts;
      const rg = ripgrep === true ? await findRipgrep() : ripgrep || null;
      // rg skips hidden files unless told; with `--hidden` it lists `.git` too, which the walk never does.
      const rgArgs = ["--files", ...(hidden ? ["--hidden", "--glob", "!.git"] : [])];
      const listed = rg ? await ripgrepPaths(env, rg, rgArgs, root, time.signal, inv.turn.cwd) : undefined;
      if (listed) {
        for (const path of listed) if (rule.regex.test(toSlash(relative(root, path)))) found.push(path);
      } else {
        await walkFiles(root, { files, signal: time.signal, hidden }, (path, rel) => {
          if (rule.regex.test(rel)) found.push(path);
        });
      }
      shown = await newestFirst(files, found, limit, time.signal);
    } catch (err) {
      if (inv.signal.aborted) throw err;
      if (time.expired) throw fail(`glob timed out after ${formatSecondsExact(timeoutMs)} seconds`);
      throw err;
    } finally {
      time.dispose();
    }
    if (shown.length === 0) return { kind: "function", body: "No files found.", success: false };
    const more =
      found.length > limit
        ? `\n(${shown.length} of ${found.length} matching files shown, the most recently modified; ` +
          `use a more specific pattern or path to see the others)`
        : "";
    return { kind: "function", body: shown.join("\n") + more, success: true };
  }
}

export interface GlobToolConfig {
  /** Default false (DESIGN section 15). */
  glob?: boolean;
}

export const globToolFactory: ToolFactory<GlobToolConfig> = (config) =>
  config.glob === true ? [{ spec: GLOB_SPEC, handler: new GlobHandler(), supportsParallel: true }] : [];
