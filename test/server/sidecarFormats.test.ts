import { describe, expect, it } from "vitest";
import { createTurnContext, PermissionEngine, type ToolHandler } from "../../src/index.js";
import { SidecarServer } from "../../src/subpaths/server.js";
import { makeRouter, waitFor } from "../support/harness.js";

type Message = Record<string, unknown> & { id?: unknown; method?: string };

const echo: ToolHandler = {
  kind: "function",
  handle: (inv) => Promise.resolve({ kind: "function", body: `echo ${JSON.stringify(inv.args)}` }),
};

function serve(turn = createTurnContext()) {
  const sent: Message[] = [];
  const router = makeRouter([{ name: "echo", handler: echo, parallel: true }]);
  const server = new SidecarServer({
    open: () => Promise.resolve({ router, turn, close: () => Promise.resolve() }),
    send: (m) => sent.push(JSON.parse(m) as Message),
  });
  let id = 0;
  const send = (method: string, params?: unknown): number => {
    server.handleLine(JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }));
    return id;
  };
  const reply = async (mine: number): Promise<Message> => {
    await waitFor(() => sent.some((m) => m.id === mine && m.method === undefined), `reply ${String(mine)}`);
    return sent.find((m) => m.id === mine && m.method === undefined)!;
  };
  const result = async <T = Record<string, unknown>>(method: string, params?: unknown): Promise<T> =>
    (await reply(send(method, params)))["result"] as T;
  return { server, sent, send, reply, result };
}

describe("the sidecar speaks every format (DESIGN section 13)", () => {
  it("initialize {format: chat} takes Chat calls and answers Chat tool messages", async () => {
    const { result } = serve();
    await result("initialize", { format: "chat" });
    const { turnId } = await result<{ turnId: string }>("turn/start");
    const submitted = await result("turn/submit", {
      turnId,
      item: {
        role: "assistant",
        tool_calls: [
          { id: "c1", type: "function", function: { name: "echo", arguments: '{"a":1}' } },
          { id: "c2", type: "function", function: { name: "echo", arguments: '{"a":2}' } },
        ],
      },
    });
    expect(submitted).toEqual({ accepted: true, callId: "c1", callIds: ["c1", "c2"] });
    expect(await result("turn/drain", { turnId })).toEqual({
      outputs: [
        { role: "tool", tool_call_id: "c1", content: 'echo {"a":1}' },
        { role: "tool", tool_call_id: "c2", content: 'echo {"a":2}' },
      ],
    });
  });

  it("initialize {format: anthropic} takes tool_use blocks and streams tool_result blocks", async () => {
    const { result, sent } = serve();
    await result("initialize", { format: "anthropic" });
    const { turnId } = await result<{ turnId: string }>("turn/start");
    expect(
      await result("turn/submit", { turnId, item: { type: "tool_use", id: "t1", name: "echo", input: { b: 2 } } }),
    ).toEqual({
      accepted: true,
      callId: "t1",
    });
    await result("turn/drain", { turnId });
    const streamed = sent.filter((m) => m.method === "turn/output").map((m) => (m["params"] as { item: unknown }).item);
    expect(streamed).toEqual([{ type: "tool_result", tool_use_id: "t1", content: 'echo {"b":2}', is_error: false }]);
  });

  it("without a format each submit is detected, and every refusal says why", async () => {
    const { result } = serve();
    await result("initialize");
    const { turnId } = await result<{ turnId: string }>("turn/start");
    expect(
      await result("turn/submit", { turnId, item: { type: "tool_use", id: "t1", name: "echo", input: {} } }),
    ).toMatchObject({
      accepted: true,
    });
    expect(
      await result("turn/submit", {
        turnId,
        item: { id: "c9", type: "function", function: { name: "echo", arguments: "{}" } },
      }),
    ).toMatchObject({ accepted: true, callId: "c9" });
    const message = await result<{ accepted: boolean; reason: string }>("turn/submit", {
      turnId,
      item: { type: "message", role: "assistant", content: [] },
    });
    expect(message.accepted).toBe(false);
    expect(message.reason).toMatch(/no tool call/);
    const reasoning = await result<{ accepted: boolean; reason: string }>("turn/submit", {
      turnId,
      item: { type: "reasoning", id: "r", summary: [] },
    });
    expect(reasoning).toEqual({
      accepted: false,
      reason: 'items of type "reasoning" are not tool calls; nothing to run',
    });
    const dup = await result<{ accepted: boolean; reason: string }>("turn/submit", {
      turnId,
      // Another call under a known id (the same call again would be answered with the first output).
      item: { type: "tool_use", id: "t1", name: "echo", input: { other: 1 } },
    });
    expect(dup.accepted).toBe(false);
    expect(dup.reason).toMatch(/t1/);
  });

  it("initialize names the formats it takes when given another", async () => {
    const { send, reply } = serve();
    const answer = await reply(send("initialize", { format: "xml" }));
    expect((answer["error"] as { code: number; message: string }).code).toBe(-32602);
    expect((answer["error"] as { message: string }).message).toMatch(/"responses", "chat", "anthropic"/);
  });

  it("requests pipelined before the end of input are all answered; an approval asked after it is denied", async () => {
    const turn = createTurnContext({ permissions: new PermissionEngine({ mode: "bypass", ask: ["echo"] }) });
    const { server, send, reply, sent } = serve(turn);
    const ids = [
      send("initialize"),
      send("turn/start", { turnId: "t" }),
      send("turn/submit", {
        turnId: "t",
        item: { type: "function_call", call_id: "c1", name: "echo", arguments: "{}" },
      }),
      send("turn/drain", { turnId: "t" }),
    ];
    await server.finishInput();
    const replies = await Promise.all(ids.map(reply));
    expect(replies.map((r) => r["error"])).toEqual([undefined, undefined, undefined, undefined]);
    const drained = replies[3]!["result"] as { outputs: Array<{ output: string }> };
    expect(drained.outputs[0]!.output).toMatch(/rejected/);
    // No question reached a client that can no longer answer.
    expect(sent.filter((m) => m.method === "approval/request")).toEqual([]);
  });
});
