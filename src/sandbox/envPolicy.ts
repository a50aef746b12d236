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
/**
 * Dropped unless `ignoreDefaultExcludes`: Codex's three, and the other names secrets go by
 * (security review S15). Not `*SESSION*`: its secrets already match `*TOKEN*`/`*SECRET*`/
 * `*COOKIE*`, and the rest (XDG_SESSION_*, DESKTOP_SESSION) describe the session programs run in.
 */
const DEFAULT_EXCLUDES = [
  "*KEY*",
  "*SECRET*",
  "*TOKEN*",
  "*PASSWORD*",
  "*PASSWD*",
  "*_PASS",
  "*CREDENTIAL*",
  "*AUTH*",
  "*_PAT",
  "*COOKIE*",
];
/** Names a default exclude matches that hold no secret: `*AUTH*` must not take git's author. */
const DEFAULT_KEEPS = ["*AUTHOR*"];
/** A URL carrying a password anywhere in a value (`postgres://user:pw@host/db`): dropped with the defaults. */
const URL_WITH_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^\s/@:]*:[^\s/@]+@/i;
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
 * The variables a command gets (Codex `create_env`): inherit, drop the default excludes (names,
 * and values holding a URL with a password), drop `exclude`, keep only `includeOnly`, then
 * `set` (last, so it survives `includeOnly`, and never judged by its value).
 * Returns a function of the host's environment, the globs compiled once.
 */
export function environmentFilter(policy: EnvironmentPolicy = {}): (base: NodeJS.ProcessEnv) => Record<string, string> {
  const inherit = policy.inherit ?? "all";
  const core = globMatcher(CORE_VARS);
  const defaults = policy.ignoreDefaultExcludes !== true;
  const byDefault = globMatcher(defaults ? DEFAULT_EXCLUDES : []);
  const keptByDefault = globMatcher(DEFAULT_KEEPS);
  const excluded = globMatcher(policy.exclude ?? []);
  const dropped = (name: string): boolean => (byDefault(name) && !keptByDefault(name)) || excluded(name);
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
        if (value !== undefined && !(defaults && URL_WITH_PASSWORD.test(value))) out[name] = value;
      }
    }
    for (const [name, value] of set) out[name] = value;
    return out;
  };
}
