/** Words of a name or a text: lower case, split at non-alphanumerics and camelCase humps. */
function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1);
}

export interface Searchable {
  name: string;
  description: string;
}

const K1 = 1.2;
const B = 0.75;
/** A word of the name counts as much as this many words of the description. */
const NAME_WEIGHT = 3;

/**
 * BM25 (k1 1.2, b 0.75) over each tool's name (its words weighted 3x) and description: the
 * standard lexical ranking, good at the short keyword queries models write ("github issue",
 * "read pdf"). Ties keep the input order. Tools that match no query word are left out.
 */
export function rankTools<T extends Searchable>(tools: readonly T[], query: string, limit: number): T[] {
  const terms = [...new Set(words(query))];
  if (terms.length === 0) return [];
  const docs = tools.map((t) => {
    const counts = new Map<string, number>();
    const add = (w: string, n: number): void => {
      counts.set(w, (counts.get(w) ?? 0) + n);
    };
    for (const w of words(t.name)) add(w, NAME_WEIGHT);
    for (const w of words(t.description)) add(w, 1);
    let length = 0;
    for (const n of counts.values()) length += n;
    return { tool: t, counts, length };
  });
  const avg = docs.reduce((sum, d) => sum + d.length, 0) / Math.max(docs.length, 1) || 1;
  const idf = new Map(
    terms.map((term) => {
      const n = docs.filter((d) => d.counts.has(term)).length;
      return [term, Math.log(1 + (docs.length - n + 0.5) / (n + 0.5))];
    }),
  );
  return docs
    .map((d, i) => {
      let score = 0;
      for (const term of terms) {
        const f = d.counts.get(term) ?? 0;
        if (f > 0) score += (idf.get(term) ?? 0) * ((f * (K1 + 1)) / (f + K1 * (1 - B + (B * d.length) / avg)));
      }
      return { tool: d.tool, score, i };
    })
    .filter((r) => r.score > 0)
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, limit)
    .map((r) => r.tool);
}
