import { realpath } from "node:fs/promises";
import path from "node:path";
import { realTargets } from "../sandbox/index.js";
import type { PolicyCall } from "./types.js";

/** One path a call touches, normalized once for every rule that looks at it. */
export interface PathView {
  /** Absolute, normalized, with `/` separators. */
  readonly abs: string;
  /** Relative to cwd when inside it (`""` for cwd itself), else undefined. */
  readonly inside: string | undefined;
  /** Relative to cwd even when outside it (`../x`): what a `../` glob is matched against. */
  readonly rel: string;
}

/** Globs are matched on `/`-separated paths on every platform. */
const slashes = path.sep === "/" ? (p: string): string => p : (p: string): string => p.split(path.sep).join("/");

/** `src/../x` is `x`; an absolute path inside cwd is also seen relative to it. */
export function viewPath(p: string, cwd: string): PathView {
  const abs = path.resolve(cwd, p);
  const rel = slashes(path.relative(cwd, abs));
  return { abs: slashes(abs), inside: isOutward(rel) ? undefined : rel, rel };
}

/** Is `abs` (already resolved) `root` or below it? Lexical only: symlinks are the sandbox's job. */
export function isInside(root: string, abs: string): boolean {
  return !isOutward(path.relative(root, abs));
}

function isOutward(rel: string): boolean {
  return rel === ".." || rel.startsWith("../") || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel);
}

/**
 * The views of a call's paths, computed on first use: every rule that looks at the call's paths
 * shares them, and calls that no path rule names never compute them. With `call.realPaths`
 * the real paths are views too, seen from the real cwd: a deny fires on either the written or
 * the real path, an allow needs both (DESIGN section 11, S10 of the 2026-11-26 review).
 */
export class CallPaths {
  #views: readonly PathView[] | undefined;
  readonly #call: PolicyCall;

  constructor(call: PolicyCall) {
    this.#call = call;
  }

  views(): readonly PathView[] {
    if (this.#views !== undefined) return this.#views;
    const written = (this.#call.subject?.paths ?? []).map((p) => viewPath(p, this.#call.cwd));
    const real = this.#call.realPaths;
    this.#views = real === undefined ? written : [...written, ...real.paths.map((p) => viewPath(p, real.cwd))];
    return this.#views;
  }
}

/**
 * Where each of the call's paths really lands, as the sandbox's write check resolves it
 * (`realTargets`: symlinks followed as far as they exist, the nearest existing ancestor for a
 * new file, and `link/..` as the kernel takes it), and the real cwd to see them from. A path
 * that cannot be resolved (a symlink loop: no write can go through it) keeps only its written view.
 */
export async function resolveRealPaths(
  paths: readonly string[],
  cwd: string,
): Promise<NonNullable<PolicyCall["realPaths"]>> {
  const realCwd = await realpath(cwd).catch(() => path.resolve(cwd));
  const resolved = await Promise.all(paths.map((p) => realTargets(cwd, p).catch((): string[] => [])));
  return { cwd: realCwd, paths: [...new Set(resolved.flat())] };
}
