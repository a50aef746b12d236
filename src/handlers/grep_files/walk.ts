import { dirname, join, resolve, sep } from "node:path";
import ignore, { type Ignore } from "ignore";
import type { DirEntry, FileOps } from "../../protocol/index.js";

/** Directories never searched, by either path (ripgrep gets a matching `--glob`). */
export const ALWAYS_SKIPPED_DIRS = ["node_modules"];

/** Directories read at once: enough to hide each `readdir`'s latency, few enough for a helper's pipe. */
const DIR_CONCURRENCY = 8;

/** One directory's ignore files, matched against paths relative to it. */
interface Scope {
  base: string;
  rules: Ignore;
}

export const toSlash = (p: string): string => (sep === "/" ? p : p.split(sep).join("/"));

/**
 * `path` relative to `base`, an ancestor of it (both absolute and normalized, as the walk makes
 * them): a slice, where `path.relative` resolves both paths again for every entry.
 */
function below(base: string, path: string): string {
  if (path.length === base.length) return "";
  return path.slice(base.endsWith(sep) ? base.length : base.length + 1);
}

/**
 * Ripgrep's verdict: the deepest directory whose rules decide (ignore or re-include) wins,
 * as a nested `.gitignore` overrides its parent's.
 */
function ignoredBy(scopes: readonly Scope[], path: string, isDir: boolean): boolean {
  for (let i = scopes.length - 1; i >= 0; i--) {
    const scope = scopes[i] as Scope;
    const rel = toSlash(below(scope.base, path));
    const verdict = scope.rules.test(isDir ? `${rel}/` : rel);
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return false;
}

async function readText(files: FileOps, path: string): Promise<string | undefined> {
  try {
    return (await files.read(path)).data.toString("utf8");
  } catch {
    return undefined; // no such ignore file, or unreadable: ripgrep goes on without it
  }
}

/**
 * The scope of `dir` from the ignore files among `names`, in ripgrep's rising precedence
 * (`.git/info/exclude`, `.gitignore`, `.ignore`, `.rgignore`: later rules win), or none.
 */
async function scopeOf(files: FileOps, dir: string, names: readonly string[]): Promise<Scope | undefined> {
  const texts = await Promise.all(names.map((name) => readText(files, join(dir, name))));
  const present = texts.filter((t): t is string => t !== undefined);
  if (present.length === 0) return undefined;
  const rules = ignore({ ignorecase: false });
  for (const text of present) rules.add(text);
  return { base: dir, rules };
}

const GIT_NAMES = [".git/info/exclude", ".gitignore", ".ignore", ".rgignore"];
const IN_GIT_NAMES = [".gitignore", ".ignore", ".rgignore"];
const PLAIN_NAMES = [".ignore", ".rgignore"];

async function exists(files: FileOps, path: string): Promise<boolean> {
  return files.stat(path).then(
    () => true,
    () => false,
  );
}

/** Ignore files that apply from above the root, as ripgrep reads them: `.gitignore` only inside a git repository. */
async function ancestorScopes(files: FileOps, root: string): Promise<{ scopes: Scope[]; inGitRepo: boolean }> {
  const ancestors: string[] = [];
  for (let dir = root, parent = dirname(dir); ; dir = parent, parent = dirname(dir)) {
    ancestors.unshift(dir);
    if (parent === dir) break;
  }
  const isGit = await Promise.all(ancestors.map((dir) => exists(files, join(dir, ".git"))));
  const gitRootIndex = isGit.lastIndexOf(true);
  const scopes: Scope[] = [];
  // The root itself counts as an ancestor: the walk reads the ignore files of the directories below it.
  for (let i = 0; i < ancestors.length; i++) {
    const names = i === gitRootIndex ? GIT_NAMES : gitRootIndex !== -1 && i > gitRootIndex ? IN_GIT_NAMES : PLAIN_NAMES;
    const scope = await scopeOf(files, ancestors[i] as string, names);
    if (scope) scopes.push(scope);
  }
  return { scopes, inGitRepo: gitRootIndex !== -1 };
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
 * Every regular file under the directory `root` that ripgrep would search: hidden files and
 * symlinks skipped, `node_modules` skipped, `.gitignore` and `.git/info/exclude` honoured inside
 * git repositories (from the repository's root down), `.ignore` and `.rgignore` everywhere (the
 * `ignore` package matches each directory's rules). Directories are read several at once, so
 * files arrive in no set order; `visit` gets the absolute path and the `/`-separated path from
 * `root`, and the walk waits for the promise it returns (the caller's back-pressure). Shared by
 * grep_files' JS search and the glob tool.
 */
export async function walkFiles(
  root: string,
  opts: WalkOptions,
  visit: (path: string, rel: string) => Promise<void> | void,
): Promise<void> {
  const { files, signal } = opts;
  root = resolve(root); // normalized, as the paths below are made by hand
  const { scopes: inherited, inGitRepo } = await ancestorScopes(files, root);
  const ignoreNames = inGitRepo ? IN_GIT_NAMES : PLAIN_NAMES;

  const walkDir = async (dir: string, scopes: readonly Scope[], own: boolean): Promise<Array<[string, Scope[]]>> => {
    // Joined by hand: `dir` is normalized, a directory entry's name holds no separator.
    const prefix = dir.endsWith(sep) ? dir : dir + sep;
    const relPrefix = dir.length === root.length ? "" : `${toSlash(below(root, dir))}/`;
    signal.throwIfAborted();
    let dirents: DirEntry[];
    try {
      dirents = await files.readdir(dir);
    } catch {
      return [];
    }
    let active = scopes as Scope[];
    // Only the ignore files the directory holds are read (the root's came with its ancestors).
    const names = own ? ignoreNames.filter((n) => dirents.some((d) => d.name === n)) : [];
    const scope = names.length > 0 ? await scopeOf(files, dir, names) : undefined;
    if (scope) active = [...scopes, scope];
    const subdirs: Array<[string, Scope[]]> = [];
    for (const d of dirents) {
      if (d.kind === "symlink" || (d.name.startsWith(".") && (opts.hidden !== true || d.name === ".git"))) continue;
      const path = prefix + d.name;
      const isDir = d.kind === "directory";
      if (isDir && ALWAYS_SKIPPED_DIRS.includes(d.name)) continue;
      if (!isDir && d.kind !== "file") continue;
      if (ignoredBy(active, path, isDir)) continue;
      const rel = relPrefix + d.name;
      if (opts.accept && !opts.accept(rel, isDir)) continue;
      if (isDir) subdirs.push([path, active]);
      else await visit(path, rel);
    }
    return subdirs;
  };

  // A small work queue: up to DIR_CONCURRENCY directories in flight, the first failure ends the walk.
  const queue: Array<[string, Scope[], boolean]> = [[root, inherited, false]];
  await new Promise<void>((resolve, reject) => {
    let running = 0;
    let failed = false;
    const pump = (): void => {
      while (!failed && running < DIR_CONCURRENCY && queue.length > 0) {
        const [dir, scopes, own] = queue.pop() as [string, Scope[], boolean];
        running++;
        walkDir(dir, scopes, own).then(
          (subdirs) => {
            running--;
            for (const [sub, subScopes] of subdirs) queue.push([sub, subScopes, true]);
            if (running === 0 && queue.length === 0) resolve();
            else pump();
          },
          (err: unknown) => {
            failed = true;
            reject(err);
          },
        );
      }
    };
    pump();
  });
}
