import { describe, expect, it } from "vitest";
import { createTurnContext, type ToolEvent, type ToolInvocation } from "../../src/index.js";
import { McpCallError, McpHandler } from "../../src/subpaths/mcp.js";
import { type CallOptions, type McpToolCaller } from "../../src/mcp/index.js";

type Call = { server: string; tool: string; args: Record<string, unknown> | undefined; opts: CallOptions | undefined };

function invocation(args: unknown, events?: ToolEvent[]): ToolInvocation {
  return {
    callId: "c1",
    toolName: "mcp__srv__echo",
    payload: { kind: "mcp", server: "srv", tool: "echo", rawArguments: JSON.stringify(args ?? {}) },
    args,
    signal: new AbortController().signal,
    turn: createTurnContext(events ? { onEvent: (e) => events.push(e) } : {}),
    context: undefined,
  };
}

function caller(answer: (call: Call) => Promise<unknown>): { calls: Call[]; caller: McpToolCaller } {
  const calls: Call[] = [];
  return {
    calls,
    caller: {
      callTool: (server, tool, args, opts) => {
        const call = { server, tool, args, opts };
        calls.push(call);
        return answer(call) as ReturnType<McpToolCaller["callTool"]>;
      },
    },
  };
}

const rejection = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => expect.fail("expected a rejection"),
    (err: unknown) => err,
  );

describe("McpHandler", () => {
  it("sends the payload's raw tool name to its server with the call's signal, and returns the result", async () => {
    const result = { content: [{ type: "text", text: "hi" }] };
    const { calls, caller: c } = caller(async () => result);
    const inv = invocation({ text: "hi" });
    expect(await new McpHandler(c).handle(inv)).toEqual({ kind: "mcp", result });
    expect(calls).toEqual([
      { server: "srv", tool: "echo", args: { text: "hi" }, opts: { signal: inv.signal, callId: inv.callId } },
    ]);
  });

  it("reports begin, progress and end only to a listener", async () => {
    const events: ToolEvent[] = [];
    const { caller: c } = caller(async ({ opts }) => {
      opts?.onProgress?.({ progress: 1, total: 2 });
      return { content: [], isError: true };
    });
    await new McpHandler(c).handle(invocation(undefined, events));
    expect(events.map((e) => e.type)).toEqual(["mcp_tool_call_begin", "mcp_tool_call_progress", "mcp_tool_call_end"]);
    expect(events[1]).toMatchObject({ server: "srv", tool: "echo", progress: 1, total: 2 });
    expect(events[2]).toMatchObject({ success: false });
  });

  it("answers the model: non-object arguments, timeouts as they are, other failures as tool call errors", async () => {
    const refuse = (err: unknown) => new McpHandler(caller(async () => Promise.reject(err)).caller);
    expect(await rejection(refuse(undefined).handle(invocation(["a"])))).toMatchObject({
      kind: "respond_to_model",
      message: "tool call error: MCP tool arguments must be a JSON object",
    });
    const timedOut = new McpCallError("timed out awaiting tools/call after 1.5s", { timedOut: true });
    expect(await rejection(refuse(timedOut).handle(invocation({})))).toMatchObject({
      message: "timed out awaiting tools/call after 1.5s",
    });
    expect(await rejection(refuse(new McpCallError("boom")).handle(invocation({})))).toMatchObject({
      message: "tool call error: boom",
    });
    expect(await rejection(refuse({ code: 7 }).handle(invocation({})))).toMatchObject({
      message: 'tool call error: {"code":7}',
    });
  });
});
