import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { processesWith, ROOT, TSX, uniqueMarker, waitFor, withTempDir } from "./helpers.js";
import { functionCall, RpcClient, type RpcMessage } from "./rpcClient.js";

const shell = (callId: string, command: string[]): Record<string, unknown> =>
  functionCall(callId, "shell", { command });

const fixtureConfig = (): string => {
  const fixture = ["--import", TSX, path.join(ROOT, "test/fixtures/mcp-server.ts"), "stdio"];
  // Parallel, so its call may overlap (and finish before) an earlier shell call.
  return [
    `[mcp_servers.fx]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify(fixture)}`,
    "supports_parallel_tool_calls = true\n",
  ].join("\n");
};

const outputText = (item: Record<string, unknown> | undefined): string => {
  const output = item?.["output"];
  return typeof output === "string" ? output : JSON.stringify(output);
};

describe("toolcall serve --stdio (JSON-RPC sidecar, child process)", () => {
  it("runs two turns on one MCP server process, streaming outputs in call order before turn/drain", async () => {
    await withTempDir(async (dir) => {
      await writeFile(path.join(dir, "toolcall.toml"), fixtureConfig());
      const client = new RpcClient(["--cwd", dir, "--sandbox", "danger-full-access"], { cwd: dir });
      const init = await client.request<{ version: string; tools: Array<{ name?: string }> }>("initialize", {
        events: true,
      });
      expect(init.version).toMatch(/^\d+\.\d+\.\d+/);
      expect(init.tools.map((t) => t.name)).toContain("mcp__fx__pid");

      const pids: string[] = [];
      for (const turnId of ["first", "second"]) {
        expect(await client.request("turn/start", { turnId })).toEqual({ turnId });
        // c1 is submitted first but finishes last: its output must still be streamed first.
        const gate = path.join(dir, `${turnId}.go`);
        const slow = ["bash", "-c", `while [ ! -e ${gate} ]; do sleep 0.02; done; echo slow`];
        expect(await client.request("turn/submit", { turnId, item: shell("c1", slow) })).toEqual({
          accepted: true,
          callId: "c1",
        });
        await client.request("turn/submit", { turnId, item: functionCall("c2", "mcp__fx__pid", {}) });
        await client.request("turn/submit", { turnId, item: { type: "message", role: "assistant", content: [] } });
        // c2 ends while c1 still waits, and nothing is streamed for it yet.
        await client.waitFor(
          (m) =>
            m.method === "event" &&
            (m["params"] as { turnId: string; event: { type: string; callId: string } }).turnId === turnId &&
            (m["params"] as { event: { type: string; callId: string } }).event.type === "tool_call_end" &&
            (m["params"] as { event: { callId: string } }).event.callId === "c2",
        );
        expect(client.outputs(turnId)).toEqual([]);
        await writeFile(gate, "");
        // Both outputs arrive, in call order, with no turn/drain sent yet.
        await client.waitFor(() => client.outputs(turnId).length === 2);
        const streamed = client.outputs(turnId);
        expect(streamed.map(([id]) => id)).toEqual(["c1", "c2"]);
        expect(outputText(streamed[0]?.[1])).toMatch(/Output:\nslow\n$/);
        pids.push(outputText(streamed[1]?.[1]));

        const drained = await client.request<{ outputs: unknown[] }>("turn/drain", { turnId });
        expect(drained.outputs).toEqual(streamed.map(([, item]) => item));
      }
      // One MCP server process served both turns.
      expect(pids[0]).toMatch(/^\d+$/);
      expect(pids[1]).toBe(pids[0]);
      expect(existsSync(`/proc/${pids[0]}`)).toBe(true);
      // A drained turn is over.
      const gone = await client.call("turn/submit", { turnId: "first", item: shell("c9", ["true"]) });
      expect(gone["error"]).toEqual({
        code: -32602,
        message: 'turnId: expected a running turn (see turn/start), got "first"',
      });

      const done = await client.shutdown();
      expect(done.code).toBe(0);
      await waitFor(async () => !existsSync(`/proc/${pids[0]}`), "the MCP server to stop");
    });
  });

  it("asks the client for approvals and answers dynamic tool calls through it", async () => {
    await withTempDir(async (dir) => {
      const client = new RpcClient([], { cwd: dir });
      const asked: Array<Record<string, unknown>> = [];
      client.handlers.set("approval/request", (params) => {
        asked.push(params);
        const summary = (params["request"] as { summary: string }).summary;
        return summary.includes("no.txt") ? { decision: "deny", message: "not that one" } : { decision: "allow" };
      });
      client.handlers.set("dynamic/call", (params) => ({
        success: true,
        contentItems: [{ type: "input_text", text: `ticket ${(params["arguments"] as { id: string }).id}: open` }],
      }));
      await client.request("initialize", {
        cwd: dir,
        config: { permissions: { ask: ["shell(touch:*)"] }, sandbox_mode: "danger-full-access" },
        dynamicTools: [
          {
            name: "lookup_ticket",
            description: "Look up a ticket",
            inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
          },
        ],
      });
      const { turnId } = await client.request<{ turnId: string }>("turn/start");
      await client.request("turn/submit", { turnId, item: shell("a1", ["touch", "yes.txt"]) });
      await client.request("turn/submit", { turnId, item: shell("a2", ["touch", "no.txt"]) });
      await client.request("turn/submit", { turnId, item: functionCall("d1", "lookup_ticket", { id: "T-1" }) });
      const { outputs } = await client.request<{ outputs: Array<Record<string, unknown>> }>("turn/drain", { turnId });

      expect(asked.map((p) => [p["turnId"], p["callId"]])).toEqual([
        [turnId, "a1"],
        [turnId, "a2"],
        [turnId, "d1"], // mutating, so the default mode asks too
      ]);
      expect(outputs.map((o) => o["call_id"])).toEqual(["a1", "a2", "d1"]);
      expect(outputText(outputs[0])).toMatch(/^Exit code: 0/);
      expect(outputText(outputs[1])).toBe("rejected by user: not that one");
      expect(outputs[2]?.["output"]).toEqual([{ type: "input_text", text: "ticket T-1: open" }]);
      expect(existsSync(path.join(dir, "yes.txt"))).toBe(true);
      expect(existsSync(path.join(dir, "no.txt"))).toBe(false);
      expect((await client.shutdown()).code).toBe(0);
    });
  });

  it("call/cancel kills one running command; the turn and the server go on", async () => {
    await withTempDir(async (dir) => {
      const client = new RpcClient(["--sandbox", "danger-full-access"], { cwd: dir });
      await client.request("initialize");
      const { turnId } = await client.request<{ turnId: string }>("turn/start");
      const marker = uniqueMarker();
      await client.request("turn/submit", { turnId, item: shell("s1", ["sleep", marker]) });
      await waitFor(async () => (await processesWith(marker)).length > 0, "the sleep to start");
      expect(await client.request("call/cancel", { turnId, callId: "s1" })).toEqual({ cancelled: true });
      const output = await client.waitFor((m) => m.method === "turn/output");
      expect(outputText((output["params"] as { item: Record<string, unknown> }).item)).toMatch(/aborted by user$/);
      await waitFor(async () => (await processesWith(marker)).length === 0, "the sleep to be killed");
      expect(await client.request("call/cancel", { turnId, callId: "s1" })).toEqual({ cancelled: false });

      await client.request("turn/submit", { turnId, item: shell("s2", ["echo", "after"]) });
      const { outputs } = await client.request<{ outputs: unknown[] }>("turn/drain", { turnId });
      expect(outputs.map(outputText as (o: unknown) => string)).toEqual([
        expect.stringMatching(/aborted by user$/),
        expect.stringMatching(/Output:\nafter\n$/),
      ]);
      expect((await client.shutdown()).code).toBe(0);
    });
  });

  it("answers bad JSON, unknown methods and bad params with their codes and keeps serving", async () => {
    await withTempDir(async (dir) => {
      const client = new RpcClient([], { cwd: dir });
      const errorOf = (m: RpcMessage): unknown => m["error"];
      expect(errorOf(await client.call("turn/start"))).toEqual({
        code: -32002,
        message: "Server not initialized: call initialize first",
      });
      const badInit = await client.call("initialize", { cwd: path.join(dir, "missing") });
      expect(errorOf(badInit)).toEqual({
        code: -32602,
        message: `--cwd: not a directory: ${path.join(dir, "missing")}`,
      });
      // A BOM before the first message is tolerated.
      client.send(
        `\uFEFF${JSON.stringify({ jsonrpc: "2.0", id: "init", method: "initialize", params: { events: 1 } })}`,
      );
      expect(errorOf(await client.waitFor((m) => m.id === "init"))).toEqual({
        code: -32602,
        message: "events: expected a boolean, got 1",
      });
      await client.request("initialize");

      client.send("{not json");
      const parse = await client.waitFor((m) => m.id === null);
      expect(parse["error"]).toMatchObject({ code: -32700, message: expect.stringMatching(/^Parse error: /) });
      expect(errorOf(await client.call("turn/explode"))).toEqual({
        code: -32601,
        message: "Method not found: turn/explode",
      });
      client.send(JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "turn/start" }]));
      await client.waitFor((m) => (m["error"] as { code?: number } | undefined)?.code === -32600);
      const { turnId } = await client.request<{ turnId: string }>("turn/start");
      expect(errorOf(await client.call("turn/submit", { turnId, item: "ls" }))).toEqual({
        code: -32602,
        message: 'item: expected a JSON object or array, got "ls"',
      });
      expect(errorOf(await client.call("call/cancel", { turnId }))).toEqual({
        code: -32602,
        message: "callId: expected a string, got nothing",
      });
      expect(errorOf(await client.call("turn/start", { turnId }))).toMatchObject({ code: -32602 });
      // Still serving: a call runs and is drained.
      await client.request("turn/submit", { turnId, item: functionCall("r1", "read_file", { file_path: "nope" }) });
      const { outputs } = await client.request<{ outputs: unknown[] }>("turn/drain", { turnId });
      expect(outputs).toHaveLength(1);
      expect((await client.shutdown()).code).toBe(0);
    });
  });

  it("SIGTERM aborts running calls, sends their outputs, leaves no process and exits 143", async () => {
    await withTempDir(async (dir) => {
      const client = new RpcClient(["--sandbox", "danger-full-access"], { cwd: dir });
      await client.request("initialize");
      const { turnId } = await client.request<{ turnId: string }>("turn/start");
      const marker = uniqueMarker();
      await client.request("turn/submit", { turnId, item: shell("t1", ["sleep", marker]) });
      const drained = client.call("turn/drain", { turnId });
      await waitFor(async () => (await processesWith(marker)).length > 0, "the sleep to start");
      client.child.kill("SIGTERM");
      const result = await client.exited;
      expect(result.code).toBe(143);
      expect(outputText(client.outputs(turnId)[0]?.[1])).toMatch(/aborted/);
      expect(((await drained)["result"] as { outputs: unknown[] }).outputs).toHaveLength(1);
      expect(await processesWith(marker)).toEqual([]);
    });
  });
});
