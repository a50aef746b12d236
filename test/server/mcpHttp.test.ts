/**
 * serveMcpHttp (the library's HTTP guard, what `toolcall serve-mcp --http` runs): the bearer
 * token, the loopback Origin rule, and an SDK client through both.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolRouter, createTurnContext } from "../../src/index.js";
import { McpToolService, serveMcpHttp, type McpHttpServer } from "../../src/subpaths/server.js";

const TOKEN = "s3cret-token-for-the-test";
let dir: string;
let served: McpHttpServer;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "toolcall-mcphttp-"));
  await writeFile(path.join(dir, "a.txt"), "hello\n");
  const router = await createToolRouter({});
  const service = new McpToolService({ router, turn: createTurnContext({ cwd: dir }) });
  served = await serveMcpHttp(service, { token: TOKEN, maxSessions: 2 });
});

afterAll(async () => {
  await served.close();
  await rm(dir, { recursive: true, force: true });
});

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
});
const post = (headers: Record<string, string>): Promise<Response> =>
  fetch(served.url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: initialize,
  });

describe("serveMcpHttp options", () => {
  it("refuses options that would switch a guard off, naming the option", async () => {
    const router = await createToolRouter({});
    const service = new McpToolService({ router, turn: createTurnContext({ cwd: os.tmpdir() }) });
    await expect(serveMcpHttp(service, { token: "" })).rejects.toThrow(
      "serveMcpHttp: token must be a non-empty string",
    );
    await expect(serveMcpHttp(service, { token: TOKEN, maxSessions: Number.NaN })).rejects.toThrow(
      "serveMcpHttp: maxSessions must be a whole number in 1..100000, got NaN",
    );
    await expect(serveMcpHttp(service, { token: TOKEN, sessionIdleMs: 0 })).rejects.toThrow(/sessionIdleMs must be/);
    await expect(serveMcpHttp(service, { token: TOKEN, port: 70_000 })).rejects.toThrow(/port must be/);
  });
});

describe("serveMcpHttp", () => {
  it("listens on 127.0.0.1 at /mcp", () => {
    expect(served.url).toBe(`http://127.0.0.1:${served.port}/mcp`);
  });

  it("refuses a request without the token, with a wrong one, and from a page elsewhere", async () => {
    const missing = await post({});
    expect(missing.status).toBe(403);
    // No challenge: an MCP client would take one (or any 401) as an OAuth offer this server does not make.
    expect(missing.headers.get("www-authenticate")).toBeNull();
    expect(await missing.text()).toContain("send Authorization: Bearer <token> (this server offers no OAuth)");
    expect((await post({ authorization: `Bearer ${TOKEN}x` })).status).toBe(403);
    const foreign = await post({ authorization: `Bearer ${TOKEN}`, origin: "http://evil.example" });
    expect(foreign.status).toBe(403);
    expect(await foreign.text()).toContain("origin http://evil.example is not this machine");
  });

  it("serves the router's tools to an SDK client that sends the token", async () => {
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(served.url), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain("read_file");
      const read = (await client.callTool({
        name: "read_file",
        arguments: { file_path: path.join(dir, "a.txt") },
      })) as CallToolResult;
      expect(JSON.stringify(read.content)).toContain("hello");
    } finally {
      await client.close();
    }
  });
});
