import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { rankTools, stem, ToolIndex } from "../../../src/handlers/tool_search/index.js";

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../fixtures/tool-search/${name}`, import.meta.url), "utf8"));
const tools = fixture("tools.json") as Array<{ name: string; description: string }>;
const paraphrases = fixture("paraphrases.json") as Array<{ query: string; expect: string }>;

describe("tool_search ranking", () => {
  it("finds the tool a paraphrase means in its first three for at least 8 of 10", () => {
    const index = new ToolIndex(tools);
    const hits = paraphrases.filter(({ query, expect: name }) =>
      index
        .search(query, 3)
        .map((t) => t.name)
        .includes(name),
    );
    expect(hits.length).toBeGreaterThanOrEqual(8);
    // The abbreviation the review saw find nothing.
    expect(index.search("open a PR", 1)[0]?.name).toBe("mcp__github__create_pull_request");
  });

  it("still ranks keyword queries by their words first", () => {
    expect(rankTools(tools, "list pull requests", 1)[0]?.name).toBe("mcp__github__list_pull_requests");
    expect(rankTools(tools, "slack channels", 1)[0]?.name).toBe("mcp__slack__list_channels");
    expect(rankTools(tools, "the of a", 5)).toEqual([]);
  });

  it("stems plurals and verb forms to one term", () => {
    expect(["requests", "request"].map(stem)).toEqual(["request", "request"]);
    expect(["listing", "listed", "lists"].map(stem)).toEqual(["list", "list", "list"]);
    expect(["entries", "branches", "running"].map(stem)).toEqual(["entry", "branch", "run"]);
  });
});
