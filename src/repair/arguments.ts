import { texts, type JsonSchema } from "../protocol/index.js";
import type { ArgumentRepair } from "../turn/index.js";
import { errorMessage, isRecord } from "../util/index.js";
import { coerceScalars } from "./coerce.js";
import { suggestProperties } from "./suggest.js";
import { parseLenient } from "./text.js";

/** Validates parsed arguments: the model-facing problems, empty when valid; `schema` is what it checks. */
export interface SchemaCheck {
  (args: unknown): readonly string[];
  readonly schema?: JsonSchema | undefined;
}

/**
 * A function call's arguments made ready for its handler: the value, with what repair did to
 * it, or the text that refuses the call (the repair note first when something was repaired).
 */
export type PreparedArguments =
  | { args: unknown; repairs: readonly ArgumentRepair[]; error?: undefined }
  | { error: string; repairs: readonly ArgumentRepair[] };

const NO_REPAIRS: readonly ArgumentRepair[] = Object.freeze([]);

/** The one required property of a tool, when it is a string: where a bare string goes. */
function soleStringProperty(schema: JsonSchema | undefined): string | undefined {
  const required = schema?.["required"];
  const properties = schema?.["properties"];
  if (!Array.isArray(required) || required.length !== 1 || !isRecord(properties)) return undefined;
  const name: unknown = required[0];
  if (typeof name !== "string" || !Object.hasOwn(properties, name)) return undefined;
  const property = properties[name];
  return isRecord(property) && property["type"] === "string" ? name : undefined;
}

/**
 * A bare string for a tool that takes one string: the raw text when it is no JSON at all, one
 * line, and does not look like an object, a list, a quoted string, a code fence or `key: value`
 * (prose around JSON, broken JSON: the meaning would be in doubt).
 */
function bareText(raw: string, schema: JsonSchema | undefined): boolean {
  const text = raw.trim();
  if (/^[{[\]"'`]/.test(text) || /[\r\n]/.test(text) || text.includes("```")) return false;
  const key = /^([\w$-]+)\s*[:=]/.exec(text)?.[1];
  const properties = schema?.["properties"];
  return key === undefined || !isRecord(properties) || !Object.hasOwn(properties, key);
}

const doubleEncoded = (what: ArgumentRepair[]): ArgumentRepair[] => [
  { kind: "double_encoded", what: "decoded the arguments, sent as a JSON string holding the object, once" },
  ...what,
];
const bareString = (property: string): ArgumentRepair => ({
  kind: "bare_string",
  what: `took the bare string as ${JSON.stringify(property)}`,
});

/**
 * The arguments as parsed text, repaired where JSON.parse refused them and the meaning is
 * certain: undefined when nothing certain reads them.
 */
function parseRepairing(
  raw: string,
  schema: JsonSchema | undefined,
): { value: unknown; repairs: ArgumentRepair[] } | undefined {
  const lenient = parseLenient(raw);
  const property = soleStringProperty(schema);
  if (lenient === undefined) {
    return property !== undefined && bareText(raw, schema)
      ? { value: { [property]: raw }, repairs: [bareString(property)] }
      : undefined;
  }
  return lenient;
}

/** A string where an object belongs: the object it encodes (decoded once), or the bare string's object. */
function fromString(
  text: string,
  schema: JsonSchema | undefined,
): { value: unknown; repairs: ArgumentRepair[] } | undefined {
  if (/^\s*(?:\{|```)/.test(text)) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      const lenient = parseLenient(text);
      return lenient && isRecord(lenient.value)
        ? { value: lenient.value, repairs: doubleEncoded(lenient.repairs) }
        : undefined;
    }
    return isRecord(value) ? { value, repairs: doubleEncoded([]) } : undefined;
  }
  const property = soleStringProperty(schema);
  return property === undefined ? undefined : { value: { [property]: text }, repairs: [bareString(property)] };
}

/** `plainArguments`' answer when the arguments are not plain: `prepareArguments` says what they are. */
export const NOT_PLAIN: unique symbol = Symbol("not plain arguments");

/**
 * The common case alone: well-formed JSON (the empty string is `{}`) the schema accepts as it
 * is, returned as parsed, with no result object; NOT_PLAIN for anything that needs repair or is
 * refused (with `repair`, a JSON string may hold the object: not plain either). Dispatch asks it
 * first and `prepareArguments` only for the rest, which parses once more.
 */
export function plainArguments(raw: string, check: SchemaCheck | null, repair: boolean): unknown {
  let args: unknown;
  if (raw.trim() === "") args = {};
  else {
    try {
      args = JSON.parse(raw);
    } catch {
      return NOT_PLAIN;
    }
    if (repair && typeof args === "string") return NOT_PLAIN;
  }
  return check === null || check(args).length === 0 ? args : NOT_PLAIN;
}

/**
 * Parses and validates a function call's argument string (the empty string is `{}`). With
 * `repair`, what JSON.parse or the schema refused is repaired where the meaning is certain
 * (DESIGN section 18); a well-formed call pays nothing more than the parse and the check. An
 * invalid call's problems name the allowed property one edit away from an unknown one.
 */
export function prepareArguments(
  toolName: string,
  raw: unknown,
  check: SchemaCheck | null,
  repair: boolean,
): PreparedArguments {
  if (typeof raw !== "string") return { error: texts.argumentsNotString, repairs: NO_REPAIRS };
  const schema = check?.schema;
  let args: unknown;
  let repairs: readonly ArgumentRepair[] = NO_REPAIRS;
  if (raw.trim() === "") args = {};
  else {
    try {
      args = JSON.parse(raw);
    } catch (err) {
      const repaired = repair ? parseRepairing(raw, schema) : undefined;
      if (!repaired) return { error: texts.argumentsNotJson(errorMessage(err)), repairs: NO_REPAIRS };
      ({ value: args, repairs } = repaired);
    }
    if (repair && typeof args === "string") {
      const decoded = fromString(args, schema);
      if (decoded) {
        args = decoded.value;
        repairs = [...repairs, ...decoded.repairs];
      }
    }
  }
  if (!check) return { args, repairs };
  let problems: readonly string[] = check(args);
  if (problems.length === 0) return { args, repairs };
  if (repair && schema) {
    const coerced = coerceScalars(args, schema);
    if (coerced.repairs.length > 0) {
      args = coerced.value;
      repairs = [...repairs, ...coerced.repairs];
      problems = check(args);
      if (problems.length === 0) return { args, repairs };
    }
  }
  const text = texts.invalidArguments(toolName, schema ? suggestProperties(problems, args, schema) : problems);
  return { error: repairs.length > 0 ? `${repairNote(repairs)}\n${text}` : text, repairs };
}

/** The line the model reads first when its arguments were repaired. */
export function repairNote(repairs: readonly ArgumentRepair[]): string {
  return texts.argumentsRepaired(repairs.map((r) => r.what));
}
