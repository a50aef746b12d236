import { lstat, readlink, realpath } from "node:fs/promises";
import path from "node:path";

/**
 * The three questions path resolution asks of a file system: the host's own by default, a
 * container's (its resident helper) for a workspace that lives there. Failures carry the
 * system's `code`.
 */
export interface PathLookup {
  isSymlink(p: string): Promise<boolean>;
  realpath(p: string): Promise<string>;
  readlink(p: string): Promise<string>;
}

const hostLookup: PathLookup = {
  isSymlink: async (p) => (await lstat(p)).isSymbolicLink(),
  realpath: (p) => realpath(p),
  readlink: (p) => readlink(p),
};

/** Symlinks followed before a path counts as a loop (as Linux's ELOOP). */
const MAX_LINKS = 40;

/** Is `p` `root` itself or inside it? Both absolute and real. */
export function isWithin(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/** The first root holding `p`, or undefined. */
export function rootOf(roots: readonly string[], p: string): string | undefined {
  return roots.find((root) => isWithin(root, p));
}

/**
 * Where a write to the absolute path `abs` lands: every symlink followed, a dangling one too
 * (a write through it creates its target), and for a path that does not exist yet its nearest
 * existing ancestor resolved and the rest appended. So neither `..` nor a symlink can leave a
 * root unnoticed. Rejects only on a symlink loop.
 */
async function realTarget(abs: string, fsys: PathLookup = hostLookup): Promise<string> {
  // The common case, a path that exists: one lookup. Anything else is walked below.
  try {
    return await fsys.realpath(abs);
  } catch {
    // dangling link, missing path or loop: the walk tells them apart
  }
  let current = path.resolve(abs);
  for (let links = 0; links <= MAX_LINKS; links++) {
    const rest: string[] = [];
    let existing = current;
    for (;;) {
      try {
        const link = await fsys.isSymlink(existing);
        let real: string;
        try {
          real = await fsys.realpath(existing);
        } catch (err) {
          // A dangling link: a write through it lands where it points, so follow it by hand.
          if (!link) throw err;
          current = path.join(path.resolve(path.dirname(existing), await fsys.readlink(existing)), ...rest.reverse());
          break;
        }
        return rest.length === 0 ? real : path.join(real, ...rest.reverse());
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === "ELOOP") throw err;
        if (code !== "ENOENT" && code !== "ENOTDIR") throw err;
        const parent = path.dirname(existing);
        if (parent === existing) return path.join(existing, ...rest.reverse());
        rest.push(path.basename(existing));
        existing = parent;
      }
    }
  }
  throw Object.assign(new Error(`too many levels of symbolic links: ${abs}`), { code: "ELOOP" });
}

/**
 * Where `p` (relative to `base`) may land, every candidate real: resolved as written (`..`
 * taken lexically, as `path.resolve` does) and, when it holds a `..`, as the kernel resolves
 * it (`link/..` is the parent of the link's target). A write can take either route, so both
 * must stay inside a root.
 */
export async function realTargets(base: string, p: string, fsys: PathLookup = hostLookup): Promise<string[]> {
  const lexical = await realTarget(path.resolve(base, p), fsys);
  if (!p.split(path.sep).includes("..")) return [lexical];
  const raw = path.isAbsolute(p) ? p : `${path.resolve(base)}${path.sep}${p}`;
  let real = path.parse(raw).root;
  for (const seg of raw.split(path.sep)) {
    if (seg === "" || seg === ".") continue;
    real = seg === ".." ? path.dirname(real) : await realTarget(path.join(real, seg), fsys);
  }
  return [lexical, real];
}

/** Real paths of the roots that exist, without duplicates (a root that does not exist is skipped). */
export async function realRoots(roots: Iterable<string>): Promise<string[]> {
  const out = new Set<string>();
  for (const root of roots) {
    try {
      out.add(await realpath(root));
    } catch {
      // A root that does not exist holds nothing to write or read.
    }
  }
  return [...out];
}
