/**
 * A look at arguments JSON.parse refused, before the JSON5 parser reads them: which of the
 * repairs DESIGN section 18 allows they need (comments, trailing commas, single quotes,
 * unquoted keys), and whether they use anything else JSON5 would accept with a meaning the
 * model may not have meant (hex or `+1` numbers, `NaN`, `\x41` or `\d` escapes, raw control
 * characters in strings): then nothing is repaired.
 */

export type TextFeature = "comment" | "trailing_comma" | "single_quotes" | "unquoted_key";

export interface Scan {
  features: Set<TextFeature>;
  /** Set when the text uses a form whose meaning is not certain: no repair then. */
  doubtful: boolean;
  /** Containers still open at the end, outermost first (`{` or `[`); none when the text is closed. */
  open: string[];
  /** The text ends inside a string or a comment. */
  unterminated: boolean;
  /** The last character outside strings and comments that is not white space. */
  last: string;
}

const JSON_ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t", "u"]);
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*/;
const LITERALS = new Set(["true", "false", "null"]);

/** Spaces and comments from `i` on: the index after them, or -1 when a comment is left open. */
function skipBlank(text: string, i: number, scan: Scan): number {
  for (;;) {
    while (i < text.length && /\s/.test(text[i] as string)) i++;
    if (text.startsWith("//", i)) {
      scan.features.add("comment");
      const end = text.indexOf("\n", i);
      i = end === -1 ? text.length : end + 1;
    } else if (text.startsWith("/*", i)) {
      scan.features.add("comment");
      const end = text.indexOf("*/", i + 2);
      if (end === -1) return -1;
      i = end + 2;
    } else return i;
  }
}

/** The index after the string starting at `i` (its quote), or -1 when it never closes. */
function skipString(text: string, i: number, scan: Scan): number {
  const quote = text[i] as string;
  if (quote === "'") scan.features.add("single_quotes");
  for (let j = i + 1; j < text.length; j++) {
    const ch = text[j] as string;
    if (ch === quote) return j + 1;
    if (ch.charCodeAt(0) < 0x20) scan.doubtful = true;
    if (ch === "\\") {
      const next = text[j + 1];
      if (next === undefined) return -1;
      if (next === "u" && !/^[0-9a-fA-F]{4}$/.test(text.slice(j + 2, j + 6))) scan.doubtful = true;
      // `\'` can only mean a quote; `\x41`, `\0`, `\d` or a line continuation could mean other things.
      else if (!JSON_ESCAPES.has(next) && next !== "'") scan.doubtful = true;
      j++;
    }
  }
  return -1;
}

export function scanText(text: string): Scan {
  const scan: Scan = { features: new Set(), doubtful: false, open: [], unterminated: false, last: "" };
  // Whether the next token of the innermost object is a key.
  let expectKey = false;
  let i = 0;
  for (;;) {
    i = skipBlank(text, i, scan);
    if (i === -1) {
      scan.unterminated = true;
      return scan;
    }
    if (i >= text.length) return scan;
    const ch = text[i] as string;
    const top = scan.open[scan.open.length - 1];
    if (ch === '"' || ch === "'") {
      const end = skipString(text, i, scan);
      if (end === -1) {
        scan.unterminated = true;
        return scan;
      }
      i = end;
      expectKey = false;
    } else if (ch === "{" || ch === "[") {
      scan.open.push(ch);
      expectKey = ch === "{";
      i++;
    } else if (ch === "}" || ch === "]") {
      if (scan.last === ",") scan.features.add("trailing_comma");
      scan.open.pop();
      expectKey = false;
      i++;
    } else if (ch === ",") {
      expectKey = top === "{";
      i++;
    } else if (ch === ":") {
      expectKey = false;
      i++;
    } else {
      const word = IDENTIFIER.exec(text.slice(i, i + 256))?.[0];
      const number = word === undefined ? NUMBER.exec(text.slice(i, i + 64))?.[0] : undefined;
      if (word !== undefined && expectKey) scan.features.add("unquoted_key");
      else if (word !== undefined && !LITERALS.has(word)) scan.doubtful = true;
      const length = word?.length ?? number?.length;
      // `+1`, `.5`, `0x1F`, `1.`: JSON5 reads them, a model may have meant something else.
      if (length === undefined || (number !== undefined && /[\w.]/.test(text[i + length] ?? ""))) {
        scan.doubtful = true;
        i++;
      } else i += length;
      expectKey = false;
    }
    scan.last = ch;
  }
}
