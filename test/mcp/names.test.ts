import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { qualifyTools, sanitizeToolName, ToolNamer } from "../../src/mcp/index.js";

const q = (tools: Array<[string, string]>) => [
  ...qualifyTools(tools.map(([server, tool]) => ({ server, tool }))).keys(),
];

describe("qualified MCP tool names", () => {
  it("sanitizes per code point and keeps short names readable", () => {
    expect(sanitizeToolName("héllo wörld.v2")).toBe("h_llo_w_rld_v2");
    expect(sanitizeToolName("😀")).toBe("_");
    expect(q([["srv", "read-file_2"]])).toEqual(["mcp__srv__read-file_2"]);
  });

  it("caps long names at 64 with the SHA-1 of the raw name", () => {
    const raw = `mcp__srv__${"x".repeat(80)}`;
    const [name] = q([["srv", "x".repeat(80)]]);
    const sha = createHash("sha1").update(raw).digest("hex");
    expect(name).toHaveLength(64);
    expect(name).toBe(raw.slice(0, 24) + sha);
  });

  it("disambiguates collisions with a hash instead of dropping a tool", () => {
    const names = q([
      ["s", "a.b"],
      ["s", "a_b"],
      ["s", "a b"],
    ]);
    expect(names).toHaveLength(3);
    expect(names[1]).toBe("mcp__s__a_b"); // the raw name that needs no change keeps the plain form
    expect(new Set(names).size).toBe(3);
    for (const n of names) expect(n).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  });

  it("keeps two tools whose server and tool names join to the same raw name", () => {
    const skipped: string[] = [];
    const map = qualifyTools(
      [
        { server: "a__b", tool: "c" },
        { server: "a", tool: "b__c" },
      ],
      (raw) => skipped.push(raw),
    );
    expect(skipped).toEqual([]);
    expect([...map.values()]).toEqual([
      { server: "a__b", tool: "c" },
      { server: "a", tool: "b__c" },
    ]);
    // The tie goes by the server/tool pair, not by listing order.
    expect([...map.keys()][1]).toBe("mcp__a__b__c");
    for (const n of map.keys()) expect(n).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  });

  it("skips only exact repeats of the same server and tool", () => {
    const skipped: string[] = [];
    const map = qualifyTools(
      [
        { server: "s", tool: "t" },
        { server: "s", tool: "t" },
      ],
      (raw) => skipped.push(raw),
    );
    expect([...map.keys()]).toEqual(["mcp__s__t"]);
    expect(skipped).toEqual(["mcp__s__t"]);
  });

  it("resolves collisions by raw names, not listing order, and never moves a name once given", () => {
    const forward = q([
      ["s", "a.b"],
      ["s", "a_b"],
    ]);
    const backward = q([
      ["s", "a_b"],
      ["s", "a.b"],
    ]);
    expect(forward[1]).toBe("mcp__s__a_b");
    expect(backward[0]).toBe("mcp__s__a_b");
    expect(forward[0]).toBe(backward[1]);

    const namer = new ToolNamer();
    const first = namer.qualify([{ server: "s", tool: "a.b" }]);
    expect([...first.keys()]).toEqual(["mcp__s__a_b"]);
    // `a_b` appears later: the name given to `a.b` stays with it.
    const later = namer.qualify([
      { server: "s", tool: "a_b" },
      { server: "s", tool: "a.b" },
    ]);
    expect(later.get("mcp__s__a_b")).toEqual({ server: "s", tool: "a.b" });
    expect([...later.keys()][0]).toMatch(/^mcp__s__a_b[0-9a-f]{40}$/);
    // Even after `a.b` is gone, its name is never reused for another tool.
    const gone = namer.qualify([{ server: "s", tool: "a_b" }]);
    expect(gone.has("mcp__s__a_b")).toBe(false);
  });
});
