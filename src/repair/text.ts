import { createRequire } from "node:module";
import type { ArgumentRepair } from "../turn/index.js";
import { scanText, type TextFeature } from "./scan.js";

// json5 is CommonJS and needed only for arguments JSON.parse refused: loaded on first use.
const require = createRequire(import.meta.url);
let json5: { parse(text: string): unknown } | undefined;
const parseJson5 = (text: string): unknown => {
  json5 ??= require("json5") as { parse(text: string): unknown };
  return json5.parse(text);
};

export interface Parsed {
  value: unknown;
  repairs: ArgumentRepair[];
}

const FEATURE_REPAIRS: Record<TextFeature, ArgumentRepair> = {
  comment: { kind: "comment", what: "removed comments" },
  trailing_comma: { kind: "trailing_comma", what: "removed a trailing comma" },
  single_quotes: { kind: "single_quotes", what: "read single-quoted strings as JSON strings" },
  unquoted_key: { kind: "unquoted_key", what: "quoted unquoted keys" },
};
const CODE_FENCE: ArgumentRepair = { kind: "code_fence", what: "removed the Markdown code fence around the arguments" };
const MISSING_BRACE: ArgumentRepair = { kind: "missing_brace", what: "added the missing closing brace" };

/** The whole text as one fenced block (an optional json tag): its inside; otherwise undefined. */
const FENCE = /^\s*```(?:json5?|jsonc|JSON)?[ \t]*\r?\n([\s\S]*?)\r?\n?```\s*$/;

/**
 * JSON with a form the model surely meant (a code fence around it, comments, trailing commas,
 * single quotes, unquoted keys, one missing final brace), read by the JSON5 parser: the value
 * and what was repaired; undefined when the text needs anything else or is not JSON at all.
 */
export function parseLenient(text: string): Parsed | undefined {
  const fenced = FENCE.exec(text);
  const inner = fenced ? (fenced[1] as string) : text;
  const prefix = fenced ? [CODE_FENCE] : [];
  if (fenced) {
    try {
      return { value: JSON.parse(inner) as unknown, repairs: prefix };
    } catch {
      // More than the fence is wrong: the JSON5 reading below.
    }
  }
  const scan = scanText(inner);
  if (scan.doubtful || scan.unterminated) return undefined;
  let candidate = inner;
  // In one order, whatever order the text had them in.
  const found = (Object.keys(FEATURE_REPAIRS) as TextFeature[]).filter((f) => scan.features.has(f));
  const repairs = [...prefix, ...found.map((f) => FEATURE_REPAIRS[f])];
  if (scan.open.length > 0) {
    // Only the outermost object's brace, after a complete value: `{"a": 1` but not `{"a": 1,` or `{"a": [1`.
    if (scan.open.length !== 1 || scan.open[0] !== "{" || "{,:".includes(scan.last)) return undefined;
    candidate = `${inner}}`;
    repairs.push(MISSING_BRACE);
  }
  if (repairs.length === 0) return undefined;
  try {
    return { value: parseJson5(candidate), repairs };
  } catch {
    return undefined;
  }
}
