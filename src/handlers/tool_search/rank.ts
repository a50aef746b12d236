import { synonymTable } from "./synonyms.js";

/** Words that say nothing about which tool is meant. */
const STOP_WORDS = new Set(
  (
    "a an the and or of in on at to for from by with into about as is are was were be been it its this that these those " +
    "me my i you your we our us he she they them what whats which who why how when where will would can could do does " +
    "did please some any all there here so then than just also now tomorrow today"
  ).split(" "),
);

/** A light English stemmer (plurals, -ing, -ed): `requests` and `request`, `listing` and `list` meet. */
export function stem(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith("ies") && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith("sses")) return word.slice(0, -2);
  if (word.endsWith("ing") && word.length > 5) return undouble(word.slice(0, -3));
  if (word.endsWith("ed") && word.length > 4) return undouble(word.slice(0, -2));
  if (word.endsWith("es") && /(?:ch|sh|x|z)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith("s") && !word.endsWith("ss") && !word.endsWith("us")) return word.slice(0, -1);
  return word;
}

/** `running` → `run`, `mapped` → `map`. */
const undouble = (w: string): string =>
  /([b-df-hj-np-tv-z])\1$/.test(w) && !/(?:ll|ss|zz)$/.test(w) ? w.slice(0, -1) : w;

/** Words of a name or a text: lower case, split at non-alphanumerics and camelCase humps. */
function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1);
}

/** Stemmed words, stop words left out. */
const terms = (text: string): string[] => words(text).flatMap((w) => (STOP_WORDS.has(w) ? [] : [stem(w)]));

const SYNONYMS = synonymTable(stem);

export interface Searchable {
  name: string;
  description: string;
}

const K1 = 1.2;
const B = 0.75;
/** A word of the name counts as much as this many words of the description. */
const NAME_WEIGHT = 3;
/** A synonym's match counts this much of the word the query used. */
const SYNONYM_WEIGHT = 0.4;

/**
 * BM25 (k1 1.2, b 0.75) over each tool's name (its words weighted 3x) and description, with
 * stemming, stop words and a synonyms list: the standard lexical ranking, good at the keyword
 * queries models write ("github issue") and, through the synonyms, at paraphrases ("open a
 * PR"). Built once per tool list; a query costs a lookup per term and tool that has it.
 */
export class ToolIndex<T extends Searchable> {
  /** Per term: the tools that have it and how often (weighted). */
  private readonly postings = new Map<string, Array<{ doc: number; f: number }>>();
  private readonly lengths: number[];
  private readonly avg: number;

  constructor(readonly tools: readonly T[]) {
    this.lengths = tools.map((t, doc) => {
      const counts = new Map<string, number>();
      for (const w of terms(t.name)) counts.set(w, (counts.get(w) ?? 0) + NAME_WEIGHT);
      for (const w of terms(t.description)) counts.set(w, (counts.get(w) ?? 0) + 1);
      let length = 0;
      for (const [term, f] of counts) {
        length += f;
        const list = this.postings.get(term) ?? [];
        list.push({ doc, f });
        this.postings.set(term, list);
      }
      return length;
    });
    this.avg = this.lengths.reduce((a, b) => a + b, 0) / Math.max(tools.length, 1) || 1;
  }

  /** The `limit` best tools for `query`, best first (ties keep the input order); tools matching nothing are left out. */
  search(query: string, limit: number): T[] {
    const weights = new Map<string, number>();
    for (const term of terms(query)) {
      weights.set(term, 1);
      for (const syn of SYNONYMS.get(term) ?? []) weights.set(syn, Math.max(weights.get(syn) ?? 0, SYNONYM_WEIGHT));
    }
    const scores = new Map<number, number>();
    const n = this.tools.length;
    for (const [term, weight] of weights) {
      const list = this.postings.get(term);
      if (!list) continue;
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
      for (const { doc, f } of list) {
        const norm = K1 * (1 - B + (B * (this.lengths[doc] as number)) / this.avg);
        scores.set(doc, (scores.get(doc) ?? 0) + weight * idf * ((f * (K1 + 1)) / (f + norm)));
      }
    }
    return [...scores]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, limit)
      .map(([doc]) => this.tools[doc] as T);
  }
}

/** One query over `tools` (an index built for it alone). */
export function rankTools<T extends Searchable>(tools: readonly T[], query: string, limit: number): T[] {
  return new ToolIndex(tools).search(query, limit);
}
