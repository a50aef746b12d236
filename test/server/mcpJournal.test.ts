// serve-mcp's journal (DESIGN section 17): a tools/call the client names in `_meta` runs once,
// however often it is retried: while it runs, after it finished, and in a service started anew.
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createMcpServer, createToolRouter, FileJournal, PermissionEngine, type TurnJournal } from "../../src/index.js";

const text = (r: unknown): string =>
  ((r as CallToolResult).content as Array<{ type: string; text?: string }>).map((c) => c.text ?? "").join("\n");

let dir: string;
let effects: string;
const open: Array<{ client: Client; journal?: TurnJournal }> = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "toolcall-mcp-journal-"));
  effects = path.join(dir, "effects.txt");
});

afterEach(async () => {
  for (const { client, journal } of open.splice(0)) {
    await client.close();
    await journal?.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

/** A service over the built-in tools, journaled in `dir/journal` unless `journaled` is false. */
async function serve(journaled = true, permissions?: PermissionEngine): Promise<Client> {
  const router = await createToolRouter({ shell: "shell" });
  const journal = journaled ? new FileJournal(path.join(dir, "journal")) : undefined;
  const turn = { cwd: dir, ...(journal && { journal }), ...(permissions && { permissions }) };
  const server = createMcpServer(router, { turn });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(clientSide);
  open.push({ client, ...(journal && { journal }) });
  return client;
}

/** What a server that died leaves in the journal of the call the client named `key`. */
function journaled(key: string, records: Array<Record<string, unknown>>, args: Record<string, unknown>): void {
  const callId = `mcp_${createHash("sha256").update(key).digest("hex").slice(0, 40)}`;
  const item = { type: "function_call", call_id: callId, name: "shell", arguments: JSON.stringify(args) };
  const lines = [
    { type: "accepted", callId, tool: "shell", item, parallel: true },
    ...records.map((r) => ({ callId, ...r })),
  ];
  writeFileSync(
    path.join(dir, "journal", `${callId}.jsonl`),
    lines.map((r) => `${JSON.stringify({ turnId: callId, ...r })}\n`).join(""),
  );
}

/** A shell call that appends to the side-effect file, named `key` by the client. */
const append = (line: string, key?: string, metaKey = "toolcall/callId") => ({
  name: "shell",
  arguments: { command: ["sh", "-c", `echo ${line} >> effects.txt; echo wrote ${line}`] },
  ...(key !== undefined && { _meta: { [metaKey]: key } }),
});
const lines = (): string[] => (existsSync(effects) ? readFileSync(effects, "utf8").split("\n").filter(Boolean) : []);

describe("serve-mcp's journal", () => {
  it("a retried call with the client's id runs once and gets the first output; other calls run", async () => {
    const client = await serve();
    const first = await client.callTool(append("a", "k1"));
    expect(text(first)).toContain("wrote a");
    const again = await client.callTool(append("a", "k1"));
    expect(again).toEqual(first);
    // Sent together: the second waits for the first instead of running.
    const both = await Promise.all([client.callTool(append("b", "k2")), client.callTool(append("b", "k2"))]);
    expect(both[1]).toEqual(both[0]);
    // Claude Code names its calls by tool-use id.
    await client.callTool(append("c", "toolu_1", "claudecode/toolUseId"));
    await client.callTool(append("c", "toolu_1", "claudecode/toolUseId"));
    // A call the client does not name cannot be known again: each runs.
    await client.callTool(append("d"));
    await client.callTool(append("d"));
    expect(lines()).toEqual(["a", "b", "c", "d", "d"]);
  });

  it("an id reused for other arguments is refused, by the client's id; a bad id is a protocol error", async () => {
    const client = await serve();
    await client.callTool(append("a", "k1"));
    const other = await client.callTool(append("other", "k1"));
    expect(other.isError).toBe(true);
    expect(text(other)).toBe("duplicate call id: k1");
    await expect(client.callTool({ ...append("x"), _meta: { "toolcall/callId": 7 } })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('_meta["toolcall/callId"] must be a string of 1-256 characters'),
    });
    expect(lines()).toEqual(["a"]);
  });

  it("a service started anew answers a finished call from the journal, and a call that was running as interrupted", async () => {
    const before = await serve();
    const done = await before.callTool(append("a", "k1"));
    // A server that died while running a mutating call: it started, no outcome.
    journaled("k2", [{ type: "started", mutating: true, idempotent: false }], append("b").arguments);
    const after = await serve();
    expect(await after.callTool(append("a", "k1"))).toEqual(done);
    const interrupted = await after.callTool(append("b", "k2"));
    expect(interrupted.isError).toBe(true);
    expect(text(interrupted)).toBe(
      "interrupted: shell was running when the agent stopped; it may or may not have taken effect. Check before running it again.",
    );
    expect(lines()).toEqual(["a"]);
  });

  it("a person's answer journaled before the server died is not asked again: the retry runs", async () => {
    // This client cannot be asked (no elicitation): without the journaled answer, nobody can approve.
    const ask = () => new PermissionEngine({ ask: ["shell"] });
    await serve(true, ask());
    journaled(
      "k1",
      [{ type: "approval_requested" }, { type: "approval_decided", decision: { decision: "allow" } }],
      append("a").arguments,
    );
    const client = await serve(true, ask());
    const ran = await client.callTool(append("a", "k1"));
    expect(text(ran)).toContain("wrote a");
    expect(lines()).toEqual(["a"]);
    const unanswered = await client.callTool(append("b", "k2"));
    expect(unanswered.isError).toBe(true);
    expect(lines()).toEqual(["a"]);
  });

  it("without a journal the client's id changes nothing", async () => {
    const client = await serve(false);
    await client.callTool(append("a", "k1"));
    await client.callTool(append("a", "k1"));
    expect(lines()).toEqual(["a", "a"]);
  });
});
