import type { Dirent } from "node:fs";
import { readFile, readdir, stat } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { looksBinary, readLines } from "../../util/index.js";
import { compileGlob, parseIgnoreFile, type GlobRule } from "./glob.js";

/** Lines longer than this are searched in their first part only. */
const MAX_SEARCH_LINE_BYTES = 1024 * 1024;
/** Directories never searched, by either path (ripgrep gets a matching `--glob`). */
export const ALWAYS_SKIPPED_DIRS = ["node_modules"];

export interface SearchRequest {
  pattern: string;
  include: string | undefined;
  /** Absolute file or directory. */
  root: string;
  signal: AbortSignal;
}

interface ScopedRule extends GlobRule {
  base: string;
}

const toSlash = (p: string): string => (sep === "/" ? p : p.split(sep).join("/"));

/**
 * Ripgrep's pattern dialect is Rust `regex`; the common subset maps 1:1 onto JS. Inline
 * flags at the start (`(?i)`, `(?s)`, `(?m)`, `(?x)` is not supported) become JS flags.
 */
export function compilePattern(pattern: string): RegExp {
  let source = pattern;
  let flags = "u";
  const inline = /^\(\?([ims]+)\)/.exec(source);
  if (inline) {
    source = source.slice(inline[0].length);
    for (const f of inline[1] as string) if (!flags.includes(f)) flags += f;
  }
  try {
    return new RegExp(source, flags);
  } catch {
    // Unicode mode rejects escapes such as `\-` that Rust accepts.
    return new RegExp(source, flags.replace("u", ""));
  }
}

function ignoredBy(rules: ScopedRule[], path: string, isDir: boolean): boolean {
  let ignored = false;
  for (const rule of rules) {
    if (rule.dirOnly && !isDir) continue;
    const rel = toSlash(relative(rule.base, path));
    if (rel === "" || rel.startsWith("..")) continue;
    if (rule.regex.test(rel)) ignored = !rule.negated;
  }
  return ignored;
}

async function readIgnoreRules(dir: string, names: string[]): Promise<ScopedRule[]> {
  const rules: ScopedRule[] = [];
  for (const name of names) {
    try {
      for (const rule of parseIgnoreFile(await readFile(join(dir, name), "utf8"))) rules.push({ ...rule, base: dir });
    } catch {
      // no such ignore file
    }
  }
  return rules;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Ignore files that apply from above the root, as ripgrep reads them: `.gitignore` only inside a git repository. */
async function ancestorRules(root: string): Promise<{ rules: ScopedRule[]; inGitRepo: boolean }> {
  const ancestors: string[] = [];
  for (let dir = root, parent = dirname(dir); ; dir = parent, parent = dirname(dir)) {
    ancestors.unshift(dir);
    if (parent === dir) break;
  }
  let gitRootIndex = -1;
  for (let i = ancestors.length - 1; i >= 0; i--) {
    if (await exists(join(ancestors[i] as string, ".git"))) {
      gitRootIndex = i;
      break;
    }
  }
  const rules: ScopedRule[] = [];
  // The root itself is read when the walk enters it.
  for (let i = 0; i < ancestors.length - 1; i++) {
    const names = gitRootIndex !== -1 && i >= gitRootIndex ? [".gitignore", ".ignore"] : [".ignore"];
    rules.push(...(await readIgnoreRules(ancestors[i] as string, names)));
  }
  return { rules, inGitRepo: gitRootIndex !== -1 };
}

async function fileMatches(path: string, regex: RegExp, signal: AbortSignal): Promise<boolean> {
  const decoder = new TextDecoder("utf-8");
  let found = false;
  try {
    await readLines(path, {
      maxLineBytes: MAX_SEARCH_LINE_BYTES,
      signal,
      onFirstChunk: (head) => !looksBinary(head),
      visit: ({ bytes }) => {
        found = regex.test(decoder.decode(bytes));
        return !found;
      },
    });
  } catch (err) {
    if (signal.aborted) throw err;
    return false; // unreadable files are skipped, as `rg --no-messages` does
  }
  return found;
}

/**
 * The JS stand-in for `rg --files-with-matches`: same defaults as ripgrep (hidden files and
 * symlinks skipped, `.gitignore` inside git repositories and `.ignore` honoured, binary files
 * skipped, line-by-line matching). Every matching path, unordered.
 */
export async function searchWithJs(req: SearchRequest): Promise<string[]> {
  const regex = compilePattern(req.pattern);
  const includeRule = req.include === undefined ? undefined : compileGlob(req.include);
  const matches: string[] = [];

  const consider = async (path: string): Promise<void> => {
    if (await fileMatches(path, regex, req.signal)) matches.push(path);
  };

  const rootInfo = await stat(req.root);
  if (rootInfo.isFile()) {
    await consider(req.root);
  } else if (rootInfo.isDirectory()) {
    const { rules: inherited, inGitRepo } = await ancestorRules(req.root);
    const ignoreNames = inGitRepo ? [".gitignore", ".ignore"] : [".ignore"];
    const stack: Array<{ dir: string; rules: ScopedRule[] }> = [{ dir: req.root, rules: inherited }];
    for (let next = stack.pop(); next; next = stack.pop()) {
      req.signal.throwIfAborted();
      const rules = next.rules.concat(await readIgnoreRules(next.dir, ignoreNames));
      let dirents: Dirent[];
      try {
        dirents = await readdir(next.dir, { withFileTypes: true });
      } catch {
        continue;
      }
      dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const d of dirents) {
        if (d.name.startsWith(".") || d.isSymbolicLink()) continue;
        const path = join(next.dir, d.name);
        const isDir = d.isDirectory();
        if (isDir && ALWAYS_SKIPPED_DIRS.includes(d.name)) continue;
        if (ignoredBy(rules, path, isDir)) continue;
        const rel = toSlash(relative(req.root, path));
        if (includeRule) {
          const hit = includeRule.regex.test(rel) && (!includeRule.dirOnly || isDir);
          // `!glob` excludes files and directories; a plain glob whitelists files only.
          if (includeRule.negated ? hit : !isDir && !hit) continue;
        }
        if (isDir) stack.push({ dir: path, rules });
        else if (d.isFile()) await consider(path);
      }
    }
  }
  return matches;
}

const STAT_BATCH = 32;

/**
 * The `limit` most recently modified of `paths`, newest first (ties by path). Sorting here
 * rather than with `rg --sortr=modified` keeps one global order for both searches (ripgrep 13
 * sorts per directory) and lets rg search in parallel.
 */
export async function newestFirst(paths: string[], limit: number, signal: AbortSignal): Promise<string[]> {
  const dated: Array<{ path: string; mtimeMs: number }> = [];
  for (let i = 0; i < paths.length; i += STAT_BATCH) {
    signal.throwIfAborted();
    const batch = paths.slice(i, i + STAT_BATCH);
    const infos = await Promise.all(batch.map((p) => stat(p).catch(() => undefined)));
    infos.forEach((info, j) => {
      if (info) dated.push({ path: batch[j] as string, mtimeMs: info.mtimeMs });
    });
  }
  dated.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return dated.slice(0, limit).map((d) => d.path);
}
