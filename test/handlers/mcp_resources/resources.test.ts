import { getEventListeners } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpConnectionManager, createToolRouter } from "../../../src/index.js";
import { startHttpFixture, type HttpFixture } from "../../fixtures/mcp-server.js";
import { call, MCP_ONLY, runtimeFor } from "../../mcp/helpers.js";

let fx: HttpFixture;
let m: McpConnectionManager;
beforeAll(async () => {
  fx = await startHttpFixture();
  m = McpConnectionManager.start({ fx: { url: fx.url }, other: { url: fx.url } });
  await m.waitForStartup();
});
afterAll(async () => {
  await m.close();
  await fx.close();
});

const outputs = async (items: ReturnType<typeof call>[]) => {
  const { runtime } = await runtimeFor(m);
  for (const i of items) runtime.submit(i);
  return (await runtime.drainOutcomes()).map((o) => ({
    success: o.success,
    text: String((o.item as { output: unknown }).output),
  }));
};

describe("MCP resource tools", () => {
  it("are offered (parallel-safe) only when a manager is given", async () => {
    const withMcp = await createToolRouter(MCP_ONLY, { mcp: m });
    for (const name of ["list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"]) {
      expect(withMcp.specs().some((s) => s.spec.type === "function" && s.spec.name === name)).toBe(true);
      expect(withMcp.toolSupportsParallel(name)).toBe(true);
    }
    const without = await createToolRouter(MCP_ONLY);
    expect(without.specs().some((s) => s.spec.type === "function" && s.spec.name.includes("mcp_resource"))).toBe(false);
  });

  it("lists one server page by page, and every server in full", async () => {
    const [first, all] = await outputs([
      call("a", "list_mcp_resources", { server: "fx" }),
      call("b", "list_mcp_resources", {}),
    ]);
    const page = JSON.parse(first!.text);
    expect(page).toEqual({
      server: "fx",
      resources: [0, 1].map((i) => ({
        server: "fx",
        uri: `fixture://res/${i}`,
        name: `res${i}`,
        mimeType: "text/plain",
      })),
      nextCursor: "2",
    });
    const [second] = await outputs([call("c", "list_mcp_resources", { server: "fx", cursor: "2" })]);
    expect(JSON.parse(second!.text).resources.map((r: { uri: string }) => r.uri)).toEqual([
      "fixture://res/2",
      "fixture://res/3",
    ]);
    const everything = JSON.parse(all!.text).resources as Array<{ server: string; uri: string }>;
    expect(everything).toHaveLength(10);
    expect(everything.map((r) => r.server)).toEqual([...Array(5).fill("fx"), ...Array(5).fill("other")]);
  });

  it("leaves no abort listener on the caller's signal after following every page", async () => {
    const signal = new AbortController().signal;
    const all = await m.listAllResources(signal);
    expect([...all.values()].map((r) => r.length)).toEqual([5, 5]); // 3 pages per server
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });

  it("lists templates and reads a resource", async () => {
    const [templates, read] = await outputs([
      call("t", "list_mcp_resource_templates", { server: "fx" }),
      call("r", "read_mcp_resource", { server: "fx", uri: "fixture://res/3" }),
    ]);
    expect(JSON.parse(templates!.text)).toEqual({
      server: "fx",
      resourceTemplates: [{ server: "fx", uriTemplate: "fixture://res/{id}", name: "res-by-id" }],
    });
    expect(JSON.parse(read!.text)).toEqual({
      server: "fx",
      uri: "fixture://res/3",
      contents: [{ uri: "fixture://res/3", mimeType: "text/plain", text: "content of fixture://res/3" }],
    });
  });

  it("answers bad requests with clear failures", async () => {
    const res = await outputs([
      call("1", "list_mcp_resources", { cursor: "2" }),
      call("2", "list_mcp_resources", { server: "nope" }),
      call("3", "read_mcp_resource", { server: "fx", uri: "other://x" }),
      call("4", "read_mcp_resource", { server: " ", uri: "fixture://res/1" }),
      call("5", "read_mcp_resource", { server: "fx" }),
    ]);
    expect(res.every((r) => !r.success)).toBe(true);
    expect(res[0]!.text).toBe("cursor can only be used when a server is specified");
    expect(res[1]!.text).toBe("resources/list failed: unknown MCP server 'nope'");
    expect(res[2]!.text).toMatch(/^resources\/read failed: .*no such resource: other:\/\/x/);
    expect(res[3]!.text).toBe("read_mcp_resource requires a non-empty server");
    expect(res[4]!.text).toMatch(/^invalid arguments for read_mcp_resource: \/ must have required property 'uri'/);
  });
});
