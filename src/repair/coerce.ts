import type { JsonSchema } from "../protocol/index.js";
import type { ArgumentRepair } from "../turn/index.js";
import { isRecord } from "../util/index.js";

/** Keywords under which a value's type is a choice: no coercion there, the meaning is in doubt. */
const COMPOSITION = ["anyOf", "oneOf", "allOf", "not", "if", "$ref", "$dynamicRef"];
const INTEGER = /^-?(?:0|[1-9]\d*)$/;
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** The types a schema allows, when it says so; undefined when it says nothing. */
function plainTypes(schema: Record<string, unknown>): string[] | undefined {
  const type = schema["type"];
  if (typeof type === "string") return [type];
  if (Array.isArray(type) && type.every((t) => typeof t === "string")) return type;
  return undefined;
}

/** `"3"` for an integer, `"2.5"` for a number, `"true"` for a boolean, where the schema allows no string. */
function scalarFor(value: string, types: string[]): number | boolean | undefined {
  if (types.includes("string")) return undefined;
  if (types.includes("integer") || types.includes("number")) {
    const integerOnly = !types.includes("number");
    if ((integerOnly ? INTEGER : NUMBER).test(value)) {
      const n = Number(value);
      if (Number.isFinite(n) && (!Number.isInteger(n) || Number.isSafeInteger(n))) return n;
    }
  }
  if (types.includes("boolean") && (value === "true" || value === "false")) return value === "true";
  return undefined;
}

const pointer = (path: string, key: string | number): string =>
  `${path}/${String(key).replace(/~/g, "~0").replace(/\//g, "~1")}`;

/**
 * Strings the schema certainly wants as numbers or booleans (`"3"` -> 3 for an integer property,
 * `"true"` -> true), through plain `properties` and `items`: a copy with them converted and
 * what was done (`value` itself when nothing was).
 */
export function coerceScalars(value: unknown, schema: JsonSchema): { value: unknown; repairs: ArgumentRepair[] } {
  const repairs: ArgumentRepair[] = [];
  const walk = (v: unknown, s: unknown, path: string): unknown => {
    if (!isRecord(s) || COMPOSITION.some((k) => k in s)) return v;
    if (typeof v === "string") {
      const types = plainTypes(s);
      const scalar = types && scalarFor(v, types);
      if (scalar === undefined) return v;
      repairs.push({ kind: "coerced", what: `read ${JSON.stringify(v)} as ${String(scalar)} for ${path || "/"}` });
      return scalar;
    }
    if (Array.isArray(v) && isRecord(s["items"])) return v.map((item, i) => walk(item, s["items"], pointer(path, i)));
    if (isRecord(v) && isRecord(s["properties"])) {
      const properties = s["properties"];
      const out: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(v)) {
        out[key] = Object.hasOwn(properties, key) ? walk(inner, properties[key], pointer(path, key)) : inner;
      }
      return out;
    }
    return v;
  };
  const out = walk(value, schema, "");
  return { value: repairs.length > 0 ? out : value, repairs };
}
