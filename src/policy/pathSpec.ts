import os from "node:os";
import path from "node:path";
import picomatch from "picomatch";
import type { PathView } from "./paths.js";
import type { RuleMode } from "./rules.js";

/**
 * A file rule's specifier, compiled once. Gitignore-style: a glob without a slash (`*.md`,
 * `.env`) matches at any depth, one with a slash (`src/**`, `./README.md`) is anchored at the
 * turn's cwd, a leading `/` makes it absolute (`~/` too, from the home directory), `../` names a
 * place beside cwd, and a glob that matches a directory matches everything below it. A trailing
 * `/` matches only below.
 *
 * picomatch rather than `ignore`: `ignore` implements gitignore exactly but only takes relative
 * paths inside its root, while rules also name absolute paths and paths outside cwd; picomatch
 * (what micromatch and fast-glob use) matches any string, and the gitignore conventions above
 * are a rewrite of the glob before it is compiled.
 */
export interface PathSpec {
  readonly absolute: boolean;
  /** `.`: cwd itself, and so (as a directory) everything inside it. */
  readonly root: boolean;
  /** Starts with `../`: matched against the path relative to cwd even when it leaves cwd. */
  readonly outward: boolean;
  /** Starts with `**` (after the rewrite): names no place, so deny and ask apply it outside cwd too. */
  readonly anywhere: boolean;
  readonly test: (p: string) => boolean;
}

/**
 * `dot`: gitignore's `*` matches dotfiles, and a deny of `src/**` must cover `src/.env`.
 * `nonegate`: a leading `!` would turn an allow into "everything but", so it is a literal.
 * `windows: false`: paths reach the matcher with `/` already, and `\` stays an escape.
 */
const OPTIONS: picomatch.PicomatchOptions = { dot: true, nonegate: true, windows: false };

export function compilePathSpec(written: string): PathSpec {
  // `read_file(~/.ssh/**)` means the home directory, not a folder named `~` in cwd.
  const specifier = written === "~" || written.startsWith("~/") ? os.homedir() + written.slice(1) : written;
  const absolute = specifier.startsWith("/");
  const below = specifier.length > 1 && specifier.endsWith("/");
  const trimmed = below ? specifier.replace(/\/+$/, "") || "/" : specifier;
  // Anchoring is read before normalizing: `./x` is anchored although `x` has no slash.
  const anchored = absolute || trimmed.includes("/");
  let glob = path.posix.normalize(trimmed);
  if (glob.startsWith("./")) glob = glob.slice(2);
  if (glob === ".") return { absolute: false, root: true, outward: false, anywhere: false, test: () => true };
  const base = anchored ? glob : `**/${glob}`;
  const descendants = base === "/" ? "/**" : `${base}/**`;
  const patterns = below || base === "/" ? [descendants] : [base, descendants];
  return {
    absolute,
    root: false,
    outward: glob === ".." || glob.startsWith("../"),
    anywhere: base.startsWith("**"),
    test: picomatch(patterns, OPTIONS),
  };
}

/**
 * A path outside cwd (`../x`, `/etc/passwd`) is matched by absolute globs and `../` globs. Other
 * relative globs describe the project: an allow never reaches outside it (`apply_patch(**)`
 * allows no write to `/etc`), while a deny or ask whose glob names no place (`*.pem`,
 * `**\/secret*`) also fires outside, since firing too often is the safe error for them.
 */
export function pathMatches(spec: PathSpec, view: PathView, mode: RuleMode): boolean {
  if (spec.absolute) return spec.test(view.abs);
  if (spec.outward) return spec.test(view.rel);
  if (view.inside !== undefined) return spec.root || (view.inside !== "" && spec.test(view.inside));
  return mode !== "allow" && spec.anywhere && spec.test(view.abs.slice(1));
}
