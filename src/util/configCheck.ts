/**
 * Checking a config document against a zod schema (the MCP configs, `toolcall.toml`): the first
 * problem as a path and a sentence, and the keys the schema does not know, sorted into errors,
 * warnings and keys another tool documents. Only zod's types are imported here: the schemas
 * come from the caller, so loading util never loads zod.
 */
import type { core } from "zod/v4";

/** What a config value is, for "expected X, got Y": short values are shown. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (value instanceof Date || value === DATE) return "a date";
  if (typeof value === "bigint") return `number ${value}`;
  return typeof value === "object" ? "a table" : `${typeof value} ${JSON.stringify(value)}`;
}

/**
 * A TOML date where a table is expected: zod takes a `Date` for an object, so a table schema
 * sees this stand-in instead (`asTableInput`) and rejects it as "a date".
 */
const DATE = Symbol("date");
export const asTableInput = (value: unknown): unknown => (value instanceof Date ? DATE : value);

/** `prefix` and a zod path as the user wrote it: `mcp_servers.a` + `["args", 1]` -> `mcp_servers.a.args[1]`. */
export function keyPath(prefix: string, path: readonly PropertyKey[]): string {
  let out = prefix;
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out;
}

/** How a table treats keys its schema does not name; given to zod as the table's error message. */
export interface UnknownKeys {
  /** `error`: the config is refused; `warn`: the key is left out and the caller warns. */
  mode: "error" | "warn";
  /** The keys the table has, for the message. */
  known: readonly string[];
  /** Keys another tool's format documents that we do not use: left out, reported as ignored. */
  documented?: readonly string[];
}

const MARK = "\u0000unknown-keys:";
/** The message a table's schema gives an `unrecognized_keys` issue (see `checkConfig`). */
export const unknownKeysMessage = (policy: UnknownKeys): string => MARK + JSON.stringify(policy);

/** One key a table does not know, with where the table is. */
export interface UnknownKey {
  path: readonly PropertyKey[];
  key: string;
  known: readonly string[];
  /** `warn`: not ours, warned; `documented`: another tool's, ignored quietly. */
  kind: "warn" | "documented";
}

export type ConfigProblem =
  | { kind: "invalid"; path: readonly PropertyKey[]; message: string }
  | { kind: "unknown"; path: readonly PropertyKey[]; key: string; known: readonly string[] };

export type ConfigCheck<T> = { ok: true; value: T; unknown: UnknownKey[] } | { ok: false; problem: ConfigProblem };

interface Schema<T> {
  safeParse(data: unknown): { success: true; data: T } | { success: false; error: { issues: core.$ZodIssue[] } };
}

/**
 * `raw` checked by `schema`: the value, or the first problem in the schema's order. Keys a
 * table warns about or another tool documents do not fail the check: they are reported and
 * left out (the document is checked again without them).
 */
export function checkConfig<T>(schema: Schema<T>, raw: unknown): ConfigCheck<T> {
  const first = schema.safeParse(raw);
  if (first.success) return { ok: true, value: first.data, unknown: [] };
  const unknown: UnknownKey[] = [];
  for (const issue of first.error.issues) {
    if (issue.code === "unrecognized_keys" && issue.message.startsWith(MARK)) {
      const policy = JSON.parse(issue.message.slice(MARK.length)) as UnknownKeys;
      for (const key of issue.keys) {
        if (policy.documented?.includes(key))
          unknown.push({ path: issue.path, key, known: policy.known, kind: "documented" });
        else if (policy.mode === "warn") unknown.push({ path: issue.path, key, known: policy.known, kind: "warn" });
        else return { ok: false, problem: { kind: "unknown", path: issue.path, key, known: policy.known } };
      }
    } else {
      return { ok: false, problem: { kind: "invalid", path: issue.path, message: issue.message } };
    }
  }
  const again = schema.safeParse(withoutKeys(raw, unknown));
  if (again.success) return { ok: true, value: again.data, unknown };
  const issue = again.error.issues[0] as core.$ZodIssue;
  return { ok: false, problem: { kind: "invalid", path: issue.path, message: issue.message } };
}

/** A copy of `raw` without the given keys (only the tables on their paths are copied). */
function withoutKeys(raw: unknown, keys: readonly UnknownKey[]): unknown {
  const root = { value: raw };
  for (const { path, key } of keys) {
    let holder: Record<PropertyKey, unknown> = root;
    let at: PropertyKey = "value";
    for (const part of path) {
      const copy = copyOf(holder[at]);
      holder[at] = copy;
      holder = copy as Record<PropertyKey, unknown>;
      at = part;
    }
    holder[at] = Object.fromEntries(Object.entries(holder[at] as object).filter(([k]) => k !== key));
  }
  return root.value;
}

const copyOf = (v: unknown): unknown => (Array.isArray(v) ? [...(v as unknown[])] : { ...(v as object) });
