import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createMcpServer,
  createToolRouter,
  createTurnContext,
  McpConnectionManager,
  McpToolService,
} from "../../src/index.js";
import { fixtureServer, MCP_ONLY } from "../mcp/helpers.js";

let manager: McpConnectionManager;
let direct: Client;
let proxied: Client;
let service: McpToolService;
beforeAll(async () => {
  const launch = fixtureServer();
  direct = new Client({ name: "direct", version: "1" });
  await direct.connect(new StdioClientTransport({ command: launch.command as string, args: launch.args ?? [] }));
  manager = McpConnectionManager.start({ fx: launch });
  await manager.waitForStartup();
  const router = await createToolRouter(MCP_ONLY, { mcp: manager });
  service = new McpToolService({ router, turn: createTurnContext(), proxy: manager });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(service).connect(serverSide);
  proxied = new Client({ name: "through-serve-mcp", version: "1" });
  await proxied.connect(clientSide);
}, 20_000);
afterAll(async () => {
  service.abort();
  await Promise.all([direct.close(), proxied.close(), manager.close()]);
});

describe("serve-mcp in front of an MCP server (SDK clients on both sides)", () => {
  it("a proxied result deep-equals the direct one: structured content, audio, embedded resource, resource link", async () => {
    const whole = await direct.callTool({ name: "mixed", arguments: {} });
    expect(whole.structuredContent).toEqual({ ok: true });
    expect(await proxied.callTool({ name: "mcp__fx__mixed", arguments: {} })).toEqual(whole);
    expect(await proxied.callTool({ name: "mcp__fx__structured", arguments: {} })).toEqual(
      await direct.callTool({ name: "structured", arguments: {} }),
    );
  });

  it("a proxied tool is listed with its server's output schema, title and hints", async () => {
    const own = (await direct.listTools()).tools.find((t) => t.name === "mixed");
    const listed = (await proxied.listTools()).tools.find((t) => t.name === "mcp__fx__mixed");
    expect(listed).toMatchObject({
      title: own?.title,
      outputSchema: own?.outputSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    });
  });

  it("what fails before the server is reached is still answered in the model's words", async () => {
    const r = await proxied.callTool({ name: "mcp__fx__echo", arguments: { text: 5 } });
    expect(r.isError).toBe(true);
    expect((r.content as Array<{ text: string }>)[0]?.text).toMatch(/invalid arguments/);
  });
});
