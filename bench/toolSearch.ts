/**
 * `npx tsx bench/toolSearch.ts [--reps N] [--base DIST] [--new DIST]`: a tool_search query over
 * 1,000 tools (the 35 of test/fixtures/tool-search plus generated ones): the base build ranks
 * from scratch per query (its handler did), this one queries an index built once per tool list;
 * and hit@1 / hit@3 of both on the fixture's 10 paraphrases. Interleaved, medians [p25–p75].
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";
import { flag, interleaved, machineLine } from "./lib/builds.js";

interface Tool {
  name: string;
  description: string;
}
type Rank = (tools: readonly Tool[], query: string, limit: number) => Tool[];
interface RankModule {
  rankTools: Rank;
  ToolIndex?: new (tools: readonly Tool[]) => { search: (q: string, limit: number) => Tool[] };
}

const reps = Number(flag("reps", "7"));
const load = async (dist: string): Promise<RankModule> =>
  (await import(pathToFileURL(resolve(dist, "handlers/tool_search/index.js")).href)) as RankModule;
const baseDir = flag("base", "");
if (baseDir === "") throw new Error("pass --base DIST: the dist/ of the build to compare with");
const base = await load(baseDir);
const next = await load(flag("new", "dist"));
if (!next.ToolIndex) throw new Error("the new build has no ToolIndex");

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../test/fixtures/tool-search/${name}`, import.meta.url), "utf8"));
const real = fixture("tools.json") as Tool[];
const paraphrases = fixture("paraphrases.json") as Array<{ query: string; expect: string }>;
const VERBS = ["get", "list", "create", "update", "delete", "search", "sync", "export", "import", "archive"];
const NOUNS = ["invoice", "customer", "order", "shipment", "report", "dataset", "alert", "metric", "user", "team"];
const tools: Tool[] = [...real];
for (let i = 0; tools.length < 1000; i++) {
  const verb = VERBS[i % VERBS.length] as string;
  const noun = NOUNS[Math.floor(i / VERBS.length) % NOUNS.length] as string;
  tools.push({
    name: `mcp__svc${i % 37}__${verb}_${noun}_${i}`,
    description: `${verb} a ${noun} record in service ${i % 37}; returns the ${noun} with its metadata and history.`,
  });
}
const queries = ["create issue", "list pull requests", "open a PR", "weather forecast for a city", "export invoice"];
const index = new next.ToolIndex(tools);
const PER_SAMPLE = 20;

process.stdout.write(`${machineLine()}\n1,000 tools, ${PER_SAMPLE} queries a sample, ms per query, ${reps} reps\n`);
const rows = await interleaved(
  [
    {
      id: "base rankTools per query",
      run: async () => {
        for (let i = 0; i < PER_SAMPLE; i++) base.rankTools(tools, queries[i % queries.length] as string, 5);
        await Promise.resolve();
      },
    },
    {
      id: "new index.search",
      run: async () => {
        for (let i = 0; i < PER_SAMPLE; i++) index.search(queries[i % queries.length] as string, 5);
        await Promise.resolve();
      },
    },
  ],
  reps,
  2,
);
for (const [id, row] of rows) process.stdout.write(`${id}: ${(row.median / PER_SAMPLE).toFixed(3)} ms/query\n`);
const start = performance.now();
new next.ToolIndex(tools);
process.stdout.write(`index build, once per tool list: ${(performance.now() - start).toFixed(2)} ms\n`);
for (const [id, rank] of [
  ["base", base.rankTools],
  ["new", next.rankTools],
] as const) {
  let h1 = 0;
  let h3 = 0;
  for (const p of paraphrases) {
    const got = rank(tools, p.query, 3).map((t) => t.name);
    if (got[0] === p.expect) h1++;
    if (got.includes(p.expect)) h3++;
  }
  process.stdout.write(`${id}: paraphrases hit@1 ${h1}/10, hit@3 ${h3}/10 (among 1,000 tools)\n`);
}
