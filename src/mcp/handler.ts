import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { FunctionCallError, texts, type ToolOutput, type ToolPayload } from "../protocol/index.js";
import type { ToolHandler, ToolInvocation } from "../registry/index.js";
import { emitEvent } from "../turn/index.js";
import { errorMessage, isRecord } from "../util/index.js";
import { McpCallError, type CallOptions } from "./connection.js";

/** What the handler needs from the manager (kept narrow so the handler is easy to test). */
export interface McpToolCaller {
  callTool(
    server: string,
    tool: string,
    args: Record<string, unknown> | undefined,
    opts?: CallOptions,
  ): Promise<CallToolResult>;
  /** The tool behind a qualified name, with its server's annotations (absent: not read-only). */
  resolve?(qualifiedName: string): { annotations?: { readOnlyHint?: boolean | undefined } | undefined } | undefined;
}

/**
 * Runs every `mcp` payload (Codex `McpHandler`): the raw tool name goes to its server with the
 * call's abort (so the server gets `notifications/cancelled`) and the server's per-call
 * timeout, which progress notifications reset. Failures answer the model with
 * `tool call error: ...` or `timed out awaiting tools/call after {N}s`.
 */
export class McpHandler implements ToolHandler {
  readonly kind = "mcp" as const;

  constructor(private readonly caller: McpToolCaller) {}

  /** Mutating unless its server says `readOnlyHint` (DESIGN section 11): it waits for the gate and the policy. */
  isMutating(inv: ToolInvocation): boolean {
    return this.caller.resolve?.(inv.toolName)?.annotations?.readOnlyHint !== true;
  }

  /** Not `async`: the call's promise with one `then`, and no more (this is every MCP call's path). */
  handle(inv: ToolInvocation): Promise<ToolOutput> {
    // The router hands this handler mcp payloads only: it refuses any other as fatal (`handlerMatchesKind`).
    const { server, tool } = inv.payload as Extract<ToolPayload, { kind: "mcp" }>;
    if (inv.args !== undefined && !isRecord(inv.args)) {
      return Promise.reject(
        FunctionCallError.respondToModel(texts.mcpCallFailed("MCP tool arguments must be a JSON object")),
      );
    }
    const turn = inv.turn;
    // Events are built only for a listener.
    const base = turn.onEvent && { callId: inv.callId, toolName: inv.toolName, server, tool };
    const opts: CallOptions = {
      callId: inv.callId,
      onProgress:
        base &&
        ((p) => {
          emitEvent(turn, {
            type: "mcp_tool_call_progress",
            ...base,
            progress: p.progress,
            ...(p.total !== undefined && { total: p.total }),
            ...(p.message !== undefined && { message: p.message }),
          });
        }),
    };
    // The runtime's invocations have onAbort: no AbortSignal per call.
    if (inv.onAbort) opts.onAbort = inv.onAbort.bind(inv);
    else opts.signal = inv.signal;
    const started = base ? performance.now() : 0;
    let result: Promise<CallToolResult>;
    try {
      if (base) emitEvent(turn, { type: "mcp_tool_call_begin", ...base });
      result = this.caller.callTool(server, tool, inv.args, opts);
    } catch (err) {
      return Promise.reject(modelFacing(err));
    }
    if (!base) return result.then(asOutput, rejectModelFacing);
    const end = (success: boolean): void => {
      emitEvent(turn, { type: "mcp_tool_call_end", ...base, success, durationMs: performance.now() - started });
    };
    return result.then(
      (r) => {
        end(r.isError !== true);
        return asOutput(r);
      },
      (err: unknown) => {
        end(false);
        throw modelFacing(err);
      },
    );
  }
}

const asOutput = (result: CallToolResult): ToolOutput => ({ kind: "mcp", result });

/** `tool call error: ...`, or the timeout text as it is. */
function modelFacing(err: unknown): FunctionCallError {
  if (err instanceof McpCallError) {
    return FunctionCallError.respondToModel(err.timedOut ? err.message : texts.mcpCallFailed(err.message));
  }
  return FunctionCallError.respondToModel(texts.mcpCallFailed(errorMessage(err)));
}

function rejectModelFacing(err: unknown): never {
  throw modelFacing(err);
}
