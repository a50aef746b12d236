/**
 * Finds `pattern` in `lines` at or after `start` (port of Codex `seek_sequence.rs`), trying
 * decreasingly strict comparisons: exact, then ignoring trailing whitespace, then ignoring
 * surrounding whitespace, then with typographic punctuation normalised to ASCII. The first
 * pass that matches anywhere wins, so an exact match later in the file beats a fuzzy one
 * earlier. With `eof`, the search starts where the pattern would end the file.
 * Returns the index of the first matching line, or undefined.
 */
export function seekSequence(
  lines: readonly string[],
  pattern: readonly string[],
  start: number,
  eof: boolean,
): number | undefined {
  if (pattern.length === 0) return start;
  if (pattern.length > lines.length) return undefined;
  const searchStart = eof ? lines.length - pattern.length : start;
  for (const same of COMPARISONS) {
    for (let i = searchStart; i <= lines.length - pattern.length; i++) {
      if (pattern.every((p, k) => same(lines[i + k] ?? "", p))) return i;
    }
  }
  return undefined;
}

const PUNCTUATION: Record<string, string> = {};
for (const c of "\u2010\u2011\u2012\u2013\u2014\u2015\u2212") PUNCTUATION[c] = "-";
for (const c of "\u2018\u2019\u201A\u201B") PUNCTUATION[c] = "'";
for (const c of "\u201C\u201D\u201E\u201F") PUNCTUATION[c] = '"';
for (const c of "\u00A0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200A\u202F\u205F\u3000") PUNCTUATION[c] = " ";
const PUNCTUATION_RE = new RegExp(`[${Object.keys(PUNCTUATION).join("")}]`, "g");

/** Trims, then maps dashes, curly quotes and odd spaces to their ASCII look-alikes. */
export function normalisePunctuation(text: string): string {
  return text.trim().replace(PUNCTUATION_RE, (c) => PUNCTUATION[c] ?? c);
}

const COMPARISONS: ReadonlyArray<(line: string, pattern: string) => boolean> = [
  (line, pattern) => line === pattern,
  (line, pattern) => line.trimEnd() === pattern.trimEnd(),
  (line, pattern) => line.trim() === pattern.trim(),
  (line, pattern) => normalisePunctuation(line) === normalisePunctuation(pattern),
];
