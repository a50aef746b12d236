import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ElicitRequestSchema, type CallToolResult, type ElicitRequest } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpServer, createToolRouter, createTurnContext, PermissionEngine } from "../../src/index.js";
import { McpToolService } from "../../src/subpaths/server.js";

const text = (r: unknown): string =>
  ((r as CallToolResult).content as Array<{ type: string; text?: string }>).map((c) => c.text ?? "").join("\n");

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "server-approvals-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * A server whose policy asks through the client, and a real SDK client with or without
 * elicitation. "service": the policy's `approve` is the service's (what serve-mcp does);
 * "router": `createMcpServer(router)` with a policy that has no approver of its own.
 */
async function connect(
  answer: ((req: ElicitRequest) => { action: "accept" | "decline"; content?: object }) | undefined,
  form: "service" | "router" = "service",
) {
  const router = await createToolRouter({ shell: "shell" });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  if (form === "router") {
    await createMcpServer(router, { turn: { cwd: dir, permissions: new PermissionEngine({}) } }).connect(serverSide);
  } else {
    let service!: McpToolService;
    const permissions = new PermissionEngine({ approve: (req, signal) => service.approve(req, signal) });
    service = new McpToolService({ router, turn: createTurnContext({ cwd: dir, permissions }) });
    await createMcpServer(service).connect(serverSide);
  }
  const client = new Client({ name: "test", version: "1.0.0" }, { capabilities: answer ? { elicitation: {} } : {} });
  const asked: string[] = [];
  if (answer) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return answer(request);
    });
  }
  await client.connect(clientSide);
  return { client, asked };
}

const touch = (file: string) => ({ name: "shell", arguments: { command: ["touch", file] } });

describe("serve-mcp approvals (DESIGN section 13: elicitation)", () => {
  it("asks a client that supports elicitation; its answer decides", async () => {
    const { client, asked } = await connect((req) =>
      req.params.message.includes("yes.txt")
        ? { action: "accept", content: { decision: "allow" } }
        : { action: "decline" },
    );
    const yes = await client.callTool(touch("yes.txt"));
    const no = await client.callTool(touch("no.txt"));
    expect(yes.isError).toBe(false);
    expect(text(no)).toBe("rejected by user: the client answered decline");
    expect(asked[0]).toMatch(/^Allow shell\? .+\ntouch yes\.txt$/);
    expect(existsSync(path.join(dir, "yes.txt"))).toBe(true);
    expect(existsSync(path.join(dir, "no.txt"))).toBe(false);
    await client.close();
  });

  it("createMcpServer(router): approvals the policy cannot answer go to the client by elicitation", async () => {
    const { client, asked } = await connect(
      (req) =>
        req.params.message.includes("r-yes.txt")
          ? { action: "accept", content: { decision: "allow" } }
          : { action: "accept", content: { decision: "deny" } },
      "router",
    );
    expect((await client.callTool(touch("r-yes.txt"))).isError).toBe(false);
    expect(text(await client.callTool(touch("r-no.txt")))).toBe("rejected by user");
    expect(asked).toHaveLength(2);
    expect(existsSync(path.join(dir, "r-yes.txt"))).toBe(true);
    expect(existsSync(path.join(dir, "r-no.txt"))).toBe(false);
    await client.close();
  });

  it("createMcpServer(router): a client without elicitation gets the no-approver answer", async () => {
    const { client } = await connect(undefined, "router");
    const result = await client.callTool(touch("r-never.txt"));
    expect(result.isError).toBe(true);
    expect(text(result)).toBe("rejected: this call needs approval and no approver is configured");
    expect(existsSync(path.join(dir, "r-never.txt"))).toBe(false);
    await client.close();
  });

  it("a client without elicitation gets the no-approver answer", async () => {
    const { client } = await connect(undefined);
    const result = await client.callTool(touch("never.txt"));
    expect(result.isError).toBe(true);
    expect(text(result)).toBe("rejected: this call needs approval and no approver is configured");
    expect(existsSync(path.join(dir, "never.txt"))).toBe(false);
    await client.close();
  });
});
