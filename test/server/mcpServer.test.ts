import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpServer, createToolRouter, createTurnContext, McpConnectionManager } from "../../src/index.js";
import { McpToolService } from "../../src/subpaths/server.js";
import { startHttpFixture, type HttpFixture } from "../fixtures/mcp-server.js";

const text = (r: unknown): string =>
  ((r as CallToolResult).content as Array<{ type: string; text?: string }>).map((c) => c.text ?? "").join("\n");

let dir: string;
let fx: HttpFixture;
let mcp: McpConnectionManager;
let client: Client;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "toolcall-server-"));
  await writeFile(path.join(dir, "a.txt"), "hello\n");
  fx = await startHttpFixture();
  // Parallel by the server's opt-in: its un-annotated tools may still write, so not read-only.
  mcp = McpConnectionManager.start({ fx: { url: fx.url, supportsParallelToolCalls: true } });
  await mcp.waitForStartup();
  const router = await createToolRouter({}, { mcp });
  let service: McpToolService | undefined;
  const turn = createTurnContext({ cwd: dir, onEvent: (e) => service?.onEvent(e) });
  service = new McpToolService({ router, turn });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(service, { version: "9.9.9" }).connect(serverSide);
  client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(clientSide);
});

afterAll(async () => {
  await client.close();
  await mcp.close();
  await fx.close();
  await rm(dir, { recursive: true, force: true });
});

describe("createMcpServer (in-memory transport, SDK client)", () => {
  it("introduces itself with the given version", () => {
    expect(client.getServerVersion()).toEqual({ name: "toolcall", version: "9.9.9" });
  });

  it("marks tools read-only from the tool itself: parallel without isMutating, or the server's hint", async () => {
    const { tools } = await client.listTools();
    const hints = new Map(tools.map((t) => [t.name, t.annotations]));
    expect(hints.get("read_file")).toEqual({ readOnlyHint: true });
    expect(hints.get("list_dir")).toEqual({ readOnlyHint: true });
    expect(hints.get("shell")).toEqual({ readOnlyHint: false, destructiveHint: true, openWorldHint: true }); // parallel, but isMutating
    expect(hints.get("apply_patch")).toEqual({ readOnlyHint: false, destructiveHint: true }); // exclusive
    // Exclusive, but its spec says it changes nothing outside the turn: a client must not confirm each plan update.
    expect(hints.get("update_plan")).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
    expect(hints.get("mcp__fx__barrier")?.readOnlyHint).toBe(true); // annotated readOnlyHint
    expect(hints.get("mcp__fx__echo")?.readOnlyHint).toBe(false); // parallel by opt-in only
  });

  it("calls registered and proxied tools through the runtime, forwarding progress", async () => {
    const read = await client.callTool({ name: "read_file", arguments: { file_path: path.join(dir, "a.txt") } });
    expect(read.isError).toBe(false);
    expect(text(read)).toBe("L1: hello");

    // An unknown tool is a protocol error (MCP specification), not an isError result.
    await expect(client.callTool({ name: "nope", arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("Unknown tool: nope"),
    });

    const progress: number[] = [];
    const slow = await client.callTool({ name: "mcp__fx__slow", arguments: { steps: 3, step_ms: 10 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    expect(text(slow)).toBe("done after 3 steps");
    expect(progress).toEqual([1, 2, 3]);
  });
});
