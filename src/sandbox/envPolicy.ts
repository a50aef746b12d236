import type { EnvironmentPolicy } from "../protocol/index.js";

/** `inherit: "core"` keeps these (DESIGN section 12; Codex's core set plus locale and terminal). */
const CORE_VARS = [
  "HOME",
  "LOGNAME",
  "PATH",
  "SHELL",
  "USER",
  "USERNAME",
  "TMPDIR",
  "TEMP",
  "TMP",
  "LANG",
  "LC_*",
  "TERM",
];
/** Dropped unless `ignoreDefaultExcludes` (Codex's defaults). */
const DEFAULT_EXCLUDES = ["*KEY*", "*SECRET*", "*TOKEN*"];
const INHERIT = new Set(["all", "core", "none"]);
/** Names whose inheritance a filter remembers (a host has a few dozen). */
const MAX_DECIDED_NAMES = 4_096;

/** A name glob (`*`, `?`), matched case-insensitively against the whole name. */
function globMatcher(globs: readonly string[]): (name: string) => boolean {
  if (globs.length === 0) return () => false;
  const source = globs
    .map((g) =>
      g
        .replace(/[.+^${}()|[\]\\]/g, "\\$&")
        .replace(/\*/g, ".*")
        .replace(/\?/g, "."),
    )
    .join("|");
  const re = new RegExp(`^(?:${source})$`, "i");
  return (name) => re.test(name);
}

/** Throws a TypeError naming the first field that is not what the policy expects. */
export function validateEnvironmentPolicy(policy: unknown, where = "env"): EnvironmentPolicy {
  if (policy === undefined) return {};
  if (typeof policy !== "object" || policy === null || Array.isArray(policy))
    throw new TypeError(`${where} must be an object`);
  const p = policy as Record<string, unknown>;
  for (const key of Object.keys(p)) {
    if (!["inherit", "ignoreDefaultExcludes", "exclude", "includeOnly", "set"].includes(key))
      throw new TypeError(`${where}.${key} is not a known option`);
  }
  if (p["inherit"] !== undefined && !INHERIT.has(p["inherit"] as string))
    throw new TypeError(`${where}.inherit must be "all", "core" or "none", got ${JSON.stringify(p["inherit"])}`);
  if (p["ignoreDefaultExcludes"] !== undefined && typeof p["ignoreDefaultExcludes"] !== "boolean")
    throw new TypeError(`${where}.ignoreDefaultExcludes must be a boolean`);
  for (const key of ["exclude", "includeOnly"] as const) {
    const list = p[key];
    if (list !== undefined && (!Array.isArray(list) || !list.every((g) => typeof g === "string" && g !== "")))
      throw new TypeError(`${where}.${key} must be a list of non-empty name globs`);
  }
  const set = p["set"];
  if (set !== undefined) {
    if (typeof set !== "object" || set === null || Array.isArray(set))
      throw new TypeError(`${where}.set must be a table of names to strings`);
    for (const [name, value] of Object.entries(set)) {
      if (typeof value !== "string") throw new TypeError(`${where}.set.${name} must be a string`);
      if (name === "" || name.includes("=") || name.includes("\0") || value.includes("\0"))
        throw new TypeError(`${where}.set has an invalid variable name or value: ${JSON.stringify(name)}`);
    }
  }
  return p;
}

/**
 * The variables a command gets (Codex `create_env`): inherit, drop the default excludes, drop
 * `exclude`, keep only `includeOnly`, then `set` (last, so it survives `includeOnly`).
 * Returns a function of the host's environment, the globs compiled once.
 */
export function environmentFilter(policy: EnvironmentPolicy = {}): (base: NodeJS.ProcessEnv) => Record<string, string> {
  const inherit = policy.inherit ?? "all";
  const core = globMatcher(CORE_VARS);
  const dropped = globMatcher([...(policy.ignoreDefaultExcludes ? [] : DEFAULT_EXCLUDES), ...(policy.exclude ?? [])]);
  const only = policy.includeOnly && policy.includeOnly.length > 0 ? globMatcher(policy.includeOnly) : undefined;
  const set = Object.entries(policy.set ?? {});
  const inherited = (name: string): boolean =>
    (inherit !== "core" || core(name)) && !dropped(name) && (only === undefined || only(name));
  // Whether a name is inherited depends on the name alone: decided once per name (the globs'
  // regexp per variable was a third of the filter's cost), bounded for a host that keeps
  // inventing names. Values are read fresh on every call, so a changed variable is seen.
  const decided = new Map<string, boolean>();
  return (base) => {
    const out: Record<string, string> = {};
    if (inherit !== "none") {
      for (const name of Object.keys(base)) {
        let keep = decided.get(name);
        if (keep === undefined) {
          if (decided.size >= MAX_DECIDED_NAMES) decided.clear();
          decided.set(name, (keep = inherited(name)));
        }
        if (!keep) continue;
        const value = base[name];
        if (value !== undefined) out[name] = value;
      }
    }
    for (const [name, value] of set) out[name] = value;
    return out;
  };
}
