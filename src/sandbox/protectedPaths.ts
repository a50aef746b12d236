import { lstatSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import { reusedFor } from "../util/index.js";
import { isWithin } from "./roots.js";

/*
 * Paths that stay read-only inside writable roots, at any depth (DESIGN section 12, "The
 * boundary is the kernel's"): what another program later runs or trusts on the host. A nested
 * repository's `.git` (its config names an fsmonitor command git runs; its hooks run on commit),
 * a `.git` file's `gitdir:` target, `.gitmodules`, shell start-up files, agent and toolcall
 * configuration. Commands get them as read-only binds (found by a bounded walk at each spawn);
 * the file tools' checkWrite refuses any path through them by name.
 */

/** Directories kept read-only whole. */
export const PROTECTED_DIRS: ReadonlySet<string> = new Set([".git", ".claude", ".codex"]);
/** Files kept read-only. */
const PROTECTED_FILES: ReadonlySet<string> = new Set([
  ".gitmodules",
  ".bashrc",
  ".bash_profile",
  ".zshrc",
  ".zprofile",
  ".profile",
  ".mcp.json",
  "toolcall.toml",
]);

/** How deep below a root the walk looks, and how many entries it reads in all, per walk. */
const MAX_DEPTH = 6;
const MAX_ENTRIES = 20_000;
/** Directories the walk does not enter: many entries, and nothing there is run by the host's tools. */
const SKIPPED = new Set(["node_modules"]);

/** The protected name `real` (a path inside `root`) passes through, or undefined. */
export function protectedName(root: string, real: string): string | undefined {
  const segments = path.relative(root, real).split(path.sep);
  const last = segments.length - 1;
  return segments.find((seg, i) => PROTECTED_DIRS.has(seg) || (i === last && PROTECTED_FILES.has(seg)));
}

/** A `.git` file's `gitdir:` target, real, or undefined. */
function gitdirOf(file: string): string | undefined {
  try {
    const m = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(file, "utf8").slice(0, 4096));
    if (!m?.[1]) return undefined;
    return realpathSync(path.resolve(path.dirname(file), m[1]));
  } catch {
    return undefined;
  }
}

/**
 * The protected paths that exist inside `roots` (real paths, outermost only: nothing inside a
 * protected directory is listed again), plus every `.git` file's `gitdir:` target that lies in a
 * root. Bounded (MAX_DEPTH levels, MAX_ENTRIES entries, `node_modules` skipped); symlinks are
 * not followed, except a `.git` link, whose target is protected.
 */
export function protectedPaths(roots: readonly string[]): string[] {
  return recentWalk(roots.join("\0"));
}

/**
 * A walk's answer is reused for REUSE_MS: a walk of a source tree costs milliseconds, more than
 * the spawn it guards. What it misses meanwhile, a repository a command just created, is no
 * more than that command could already write itself.
 */
const REUSE_MS = 2_000;
const recentWalk = reusedFor(REUSE_MS, (key) => walk(key.split("\0")));

/** protectedPaths, walked now (the file tools' check, which a stale answer must not pass). */
export function walk(roots: readonly string[]): string[] {
  const found = new Set<string>();
  let budget = MAX_ENTRIES;
  const addTarget = (target: string | undefined): void => {
    if (target !== undefined && roots.some((root) => isWithin(root, target))) found.add(target);
  };
  const queue: Array<{ dir: string; depth: number }> = roots.map((dir) => ({ dir, depth: 0 }));
  for (let next = queue.shift(); next !== undefined && budget > 0; next = queue.shift()) {
    const { dir, depth } = next;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (--budget < 0) break;
      const full = path.join(dir, entry.name);
      if (PROTECTED_DIRS.has(entry.name)) {
        if (entry.isDirectory()) found.add(full);
        else if (entry.name === ".git" && entry.isFile()) {
          found.add(full);
          addTarget(gitdirOf(full));
        } else if (entry.isSymbolicLink()) {
          try {
            if (lstatSync(realpathSync(full)).isDirectory()) addTarget(realpathSync(full));
          } catch {
            // dangling: nothing there to protect
          }
        }
      } else if (PROTECTED_FILES.has(entry.name) && !entry.isDirectory()) {
        found.add(full);
      } else if (entry.isDirectory() && depth < MAX_DEPTH && !SKIPPED.has(entry.name)) {
        queue.push({ dir: full, depth: depth + 1 });
      }
    }
  }
  // A target inside an already protected directory needs no bind of its own.
  const all = [...found];
  return all.filter((p) => !all.some((q) => q !== p && isWithin(q, p)));
}
