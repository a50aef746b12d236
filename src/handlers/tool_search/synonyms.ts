/**
 * Words models use for what tool descriptions say otherwise ("open a PR" for "create a pull
 * request"). Each group is a set of interchangeable terms (stems, several words for an
 * abbreviation); a query word also searches its groups' other terms, at a lower weight.
 */
const GROUPS: readonly string[][] = [
  ["pr", "pull request"],
  ["mr", "merge request"],
  ["ci", "workflow", "action", "job", "build", "pipeline"],
  ["create", "open", "new", "make", "add", "file", "start"],
  ["bug", "issue", "ticket", "defect", "problem"],
  ["delete", "remove", "erase", "drop"],
  ["show", "get", "list", "view", "display", "fetch", "retrieve", "read"],
  ["find", "search", "lookup", "look", "query", "grep"],
  ["send", "post", "tell", "notify", "announce", "message", "chat"],
  ["team", "channel", "slack"],
  ["folder", "directory", "dir"],
  ["document", "file", "doc"],
  ["rename", "move"],
  ["db", "database", "sql", "table", "row", "record"],
  ["schedule", "meeting", "event", "calendar", "appointment"],
  ["rain", "snow", "temperature", "weather", "forecast", "sunny"],
  ["capture", "screenshot", "snapshot", "image", "picture"],
  ["web", "page", "browser", "site", "url", "website"],
  ["output", "log", "trace"],
  ["fail", "error", "crash", "failure"],
  ["email", "mail", "inbox"],
  ["repo", "repository"],
  ["translate", "language"],
  ["container", "docker"],
  ["comment", "reply", "note"],
];

/**
 * Each term (normalized by `normalize`, the stemmer) with the other terms of its groups, the
 * words of a several-word term split. A several-word term is reached from its abbreviation only.
 */
export function synonymTable(normalize: (word: string) => string): ReadonlyMap<string, readonly string[]> {
  const table = new Map<string, Set<string>>();
  for (const group of GROUPS) {
    const terms = group.map((t) => t.split(" ").map(normalize));
    for (const t of terms) {
      if (t.length !== 1) continue;
      const key = t[0] as string;
      const set = table.get(key) ?? new Set<string>();
      for (const w of terms.flat()) if (w !== key) set.add(w);
      table.set(key, set);
    }
  }
  return new Map([...table].map(([k, v]) => [k, [...v]]));
}
