/**
 * MCP calls through the runtime pass cancellation on with `onAbort`, not a per-call
 * `AbortSignal` (#14 item 4), and an abort still reaches the server as `notifications/cancelled`.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  createToolRouter,
  createTurnContext,
  McpConnectionManager,
  ToolCallRuntime,
  type ToolEvent,
  type ToolInvocation,
} from "../../src/index.js";
import { McpHandler } from "../../src/subpaths/mcp.js";
import type { CallOptions } from "../../src/mcp/index.js";
import { call, eventually, fixtureServer, MCP_ONLY } from "./helpers.js";

let manager: McpConnectionManager;

beforeAll(async () => {
  manager = McpConnectionManager.start({ fx: fixtureServer() });
  await manager.waitForStartup();
});

afterAll(async () => {
  await manager.close();
});

async function cancelled(): Promise<string[]> {
  const r = await manager.callTool("fx", "cancellations", {});
  return JSON.parse((r.content[0] as { text: string }).text) as string[];
}

describe("MCP cancellation without a per-call AbortSignal", () => {
  it("the handler registers onAbort and never reads the invocation's signal", async () => {
    const seen: CallOptions[] = [];
    const handler = new McpHandler({
      callTool: (_server, _tool, _args, opts) => {
        if (opts) seen.push(opts);
        return Promise.resolve({ content: [{ type: "text", text: "ok" }] });
      },
    });
    const listeners: Array<(reason: unknown) => void> = [];
    const inv: ToolInvocation = {
      callId: "c1",
      toolName: "mcp__srv__echo",
      payload: { kind: "mcp", server: "srv", tool: "echo", rawArguments: "{}" },
      args: {},
      get signal(): AbortSignal {
        throw new Error("signal read");
      },
      onAbort: (listener) => listeners.push(listener),
      turn: createTurnContext(),
      context: undefined,
    };
    await handler.handle(inv);
    expect(seen[0]?.signal).toBeUndefined();
    const forward = vi.fn();
    seen[0]?.onAbort?.(forward);
    expect(listeners).toHaveLength(1);
    listeners[0]?.("stop");
    expect(forward).toHaveBeenCalledWith("stop");
  });

  it("aborting one call of a parallel batch cancels just that request at the server", async () => {
    const router = await createToolRouter(MCP_ONLY, { mcp: manager });
    const events: ToolEvent[] = [];
    const runtime = new ToolCallRuntime(router, createTurnContext({ onEvent: (e) => events.push(e) }));
    const before = (await cancelled()).length;
    const abort = new AbortController();
    const slow = runtime.handleToolCall(
      router.buildToolCall(call("slow", "mcp__fx__slow", { steps: 50, step_ms: 100 }))!,
      abort.signal,
    );
    runtime.submit(call("echo", "mcp__fx__echo", { text: "still here" }));
    await eventually(() => events.some((e) => e.type === "mcp_tool_call_progress"), "the slow call running");
    abort.abort("enough");
    const outcome = await slow;
    expect(outcome.aborted).toBe(true);
    const [echo] = await runtime.drainOutcomes();
    expect(echo?.item).toMatchObject({ output: "still here" });
    await eventually(async () => (await cancelled()).length === before + 1, "server saw one notifications/cancelled");
  });

  it("router.dispatch without the runtime (a plain signal) still cancels at the server", async () => {
    const router = await createToolRouter(MCP_ONLY, { mcp: manager });
    const before = (await cancelled()).length;
    const abort = new AbortController();
    const events: ToolEvent[] = [];
    const result = router.dispatch(router.buildToolCall(call("d", "mcp__fx__slow", { steps: 50, step_ms: 100 }))!, {
      turn: createTurnContext({ onEvent: (e) => events.push(e) }),
      signal: abort.signal,
    });
    await eventually(() => events.some((e) => e.type === "mcp_tool_call_progress"), "the slow call running");
    abort.abort("enough");
    expect((await result).success).toBe(false);
    await eventually(async () => (await cancelled()).length === before + 1, "server saw notifications/cancelled");
  });
});
