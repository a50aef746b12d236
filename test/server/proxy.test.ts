import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpServer, createToolRouter, createTurnContext, McpConnectionManager } from "../../src/index.js";
import { McpToolService } from "../../src/subpaths/server.js";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { EVERYTHING, eventually, fixtureServer, MCP_ONLY } from "../mcp/helpers.js";

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
});
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

describe("serve-mcp in front of server-everything: resources, prompts, completions, logging forwarded", () => {
  let m: McpConnectionManager;
  let svc: McpToolService;
  let straight: Client;
  let through: Client;
  const logs: unknown[] = [];
  beforeAll(async () => {
    const launch = { command: process.execPath, args: [EVERYTHING, "stdio"] };
    straight = new Client({ name: "direct", version: "1" });
    await straight.connect(new StdioClientTransport(launch));
    m = McpConnectionManager.start({ ev: launch });
    await m.waitForStartup();
    svc = new McpToolService({
      router: await createToolRouter(MCP_ONLY, { mcp: m }),
      turn: createTurnContext(),
      proxy: m,
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(svc).connect(serverSide);
    through = new Client({ name: "through", version: "1" });
    through.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params);
    });
    await through.connect(clientSide);
  });
  afterAll(async () => {
    svc.abort();
    await Promise.all([straight.close(), through.close(), m.close()]);
  });

  it("declares what it forwards", () => {
    expect(through.getServerCapabilities()).toMatchObject({
      tools: {},
      resources: { subscribe: true },
      prompts: {},
      logging: {},
      completions: {},
    });
  });

  it("resources: list, templates and read as the server answers them", async () => {
    const direct = await straight.listResources();
    const proxied = await through.listResources();
    expect(proxied.resources).toEqual(expect.arrayContaining(direct.resources));
    expect((await through.listResourceTemplates()).resourceTemplates).toEqual(
      (await straight.listResourceTemplates()).resourceTemplates,
    );
    const uri = direct.resources[0]?.uri as string;
    expect(await through.readResource({ uri })).toEqual(await straight.readResource({ uri }));
    await expect(through.subscribeResource({ uri })).resolves.toEqual({});
  });

  it("prompts under qualified names, answered as the server answers; completions too", async () => {
    const direct = (await straight.listPrompts()).prompts;
    const proxied = (await through.listPrompts()).prompts;
    expect(proxied).toEqual(direct.map((p) => ({ ...p, name: `mcp__ev__${p.name}` })));
    expect(await through.getPrompt({ name: "mcp__ev__simple-prompt" })).toEqual(
      await straight.getPrompt({ name: "simple-prompt" }),
    );
    const ref = (name: string) => ({ type: "ref/prompt" as const, name });
    const argument = { name: "department", value: "E" };
    expect(await through.complete({ ref: ref("mcp__ev__completable-prompt"), argument })).toEqual(
      await straight.complete({ ref: ref("completable-prompt"), argument }),
    );
  });

  it("logging: the level goes to the server and its messages come back", async () => {
    await through.setLoggingLevel("debug");
    await through.callTool({ name: "mcp__ev__toggle-simulated-logging", arguments: {} });
    await eventually(() => logs.length > 0, "a log message from server-everything");
    expect(logs[0]).toMatchObject({ level: expect.any(String), data: expect.anything() });
    await through.callTool({ name: "mcp__ev__toggle-simulated-logging", arguments: {} });
  });
});
