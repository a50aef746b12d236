import { dirname, join, relative, sep } from "node:path";
import type { DirEntry, FileOps } from "../../protocol/index.js";
import { parseIgnoreFile, type GlobRule } from "./glob.js";

/** Directories never searched, by either path (ripgrep gets a matching `--glob`). */
export const ALWAYS_SKIPPED_DIRS = ["node_modules"];

interface ScopedRule extends GlobRule {
  base: string;
}

const toSlash = (p: string): string => (sep === "/" ? p : p.split(sep).join("/"));

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

async function readIgnoreRules(files: FileOps, dir: string, names: string[]): Promise<ScopedRule[]> {
  const rules: ScopedRule[] = [];
  for (const name of names) {
    try {
      const text = (await files.read(join(dir, name))).data.toString("utf8");
      for (const rule of parseIgnoreFile(text)) rules.push({ ...rule, base: dir });
    } catch {
      // no such ignore file
    }
  }
  return rules;
}

async function exists(files: FileOps, path: string): Promise<boolean> {
  return files.stat(path).then(
    () => true,
    () => false,
  );
}

/** Ignore files that apply from above the root, as ripgrep reads them: `.gitignore` only inside a git repository. */
async function ancestorRules(files: FileOps, root: string): Promise<{ rules: ScopedRule[]; inGitRepo: boolean }> {
  const ancestors: string[] = [];
  for (let dir = root, parent = dirname(dir); ; dir = parent, parent = dirname(dir)) {
    ancestors.unshift(dir);
    if (parent === dir) break;
  }
  let gitRootIndex = -1;
  for (let i = ancestors.length - 1; i >= 0; i--) {
    if (await exists(files, join(ancestors[i] as string, ".git"))) {
      gitRootIndex = i;
      break;
    }
  }
  const rules: ScopedRule[] = [];
  // The root itself is read when the walk enters it.
  for (let i = 0; i < ancestors.length - 1; i++) {
    const names = gitRootIndex !== -1 && i >= gitRootIndex ? [".gitignore", ".ignore"] : [".ignore"];
    rules.push(...(await readIgnoreRules(files, ancestors[i] as string, names)));
  }
  return { rules, inGitRepo: gitRootIndex !== -1 };
}

export interface WalkOptions {
  /** Where the directories are read: the turn's environment. */
  files: FileOps;
  signal: AbortSignal;
  /**
   * Whether to descend into `dir` (absolute; `rel` is `/`-separated from the root) and, for
   * files, whether to visit it. Default: everything the ignore rules let through.
   */
  accept?: (rel: string, isDir: boolean) => boolean;
  /** Also walk hidden files and directories (`.github`); `.git` stays skipped. Default false, as ripgrep. */
  hidden?: boolean;
}

/**
 * Every regular file under the directory `root` that ripgrep would search, sorted by name within
 * each directory: hidden files and symlinks skipped, `node_modules` skipped, `.gitignore` honoured
 * inside git repositories (from the repository's root down) and `.ignore` everywhere. `visit`
 * gets the absolute path and the `/`-separated path from `root`. Shared by grep_files' JS search
 * and the glob tool.
 */
export async function walkFiles(
  root: string,
  opts: WalkOptions,
  visit: (path: string, rel: string) => Promise<void> | void,
): Promise<void> {
  const { files } = opts;
  const { rules: inherited, inGitRepo } = await ancestorRules(files, root);
  const ignoreNames = inGitRepo ? [".gitignore", ".ignore"] : [".ignore"];
  const stack: Array<{ dir: string; rules: ScopedRule[] }> = [{ dir: root, rules: inherited }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    opts.signal.throwIfAborted();
    const rules = next.rules.concat(await readIgnoreRules(files, next.dir, ignoreNames));
    let dirents: DirEntry[];
    try {
      dirents = await files.readdir(next.dir);
    } catch {
      continue;
    }
    dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const d of dirents) {
      if (d.kind === "symlink" || (d.name.startsWith(".") && (opts.hidden !== true || d.name === ".git"))) continue;
      const path = join(next.dir, d.name);
      const isDir = d.kind === "directory";
      if (isDir && ALWAYS_SKIPPED_DIRS.includes(d.name)) continue;
      if (ignoredBy(rules, path, isDir)) continue;
      const rel = toSlash(relative(root, path));
      if (opts.accept && !opts.accept(rel, isDir)) continue;
      if (isDir) stack.push({ dir: path, rules });
      else if (d.kind === "file") await visit(path, rel);
    }
  }
}
