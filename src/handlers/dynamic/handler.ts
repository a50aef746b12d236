import { FunctionCallError, type ToolOutput } from "../../protocol/index.js";
import { emitEvent, deadline, dynamicCallBroker } from "../../turn/index.js";
import type { DynamicToolSpec, ToolHandler, ToolInvocation, ToolFactory } from "../../registry/index.js";
import { formatSecondsExact } from "../../util/index.js";

export const DEFAULT_DYNAMIC_TOOL_TIMEOUT_MS = 300_000;
// What the Responses API accepts as a function name.
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * A tool the embedder answers: the call becomes a `dynamic_tool_call_request` event and waits
 * for `runtime.respondToDynamicToolCall(callId, ...)`, at most `timeoutMs` (Codex waits forever).
 */
export class DynamicToolHandler implements ToolHandler {
  readonly kind = "function" as const;

  constructor(private readonly timeoutMs: number = DEFAULT_DYNAMIC_TOOL_TIMEOUT_MS) {}

  isMutating(): boolean {
    return true; // the embedder may do anything
  }

  async handle(inv: ToolInvocation): Promise<ToolOutput> {
    const limit = deadline(inv.signal, this.timeoutMs);
    // Waiting starts before the event so an embedder answering inside `onEvent` is heard.
    const answer = dynamicCallBroker(inv.turn).wait(inv.callId, limit.signal);
    emitEvent(inv.turn, {
      type: "dynamic_tool_call_request",
      callId: inv.callId,
      toolName: inv.toolName,
      arguments: inv.args,
    });
    try {
      const { success, contentItems } = await answer;
      return { kind: "function", body: contentItems, success };
    } catch (err) {
      if (!limit.expired) throw err;
      throw FunctionCallError.respondToModel(
        `dynamic tool ${inv.toolName} got no response within ${formatSecondsExact(this.timeoutMs)}s`,
      );
    } finally {
      limit.dispose();
    }
  }
}

function checkTimeout(ms: number | undefined): number {
  if (ms === undefined) return DEFAULT_DYNAMIC_TOOL_TIMEOUT_MS;
  if (!Number.isInteger(ms) || ms < 1) {
    throw new RangeError(`dynamicToolTimeoutMs must be a positive integer, got ${String(ms)}`);
  }
  return ms;
}

export interface DynamicToolsConfig {
  /** How long a dynamic tool call waits for the embedder's answer. Default 300_000. */
  dynamicToolTimeoutMs?: number;
}

/** One function tool per `DynamicToolSpec`: not parallel, mutating (DESIGN section 5). */
export const dynamicToolsFactory: ToolFactory<DynamicToolsConfig> = (config, ctx) => {
  if (ctx.dynamicTools.length === 0) return [];
  const handler = new DynamicToolHandler(checkTimeout(config.dynamicToolTimeoutMs));
  return ctx.dynamicTools.map((tool: DynamicToolSpec) => {
    if (typeof tool.name !== "string" || !TOOL_NAME.test(tool.name)) {
      throw new Error(
        `invalid dynamic tool name ${JSON.stringify(tool.name)}: expected 1-64 characters of [a-zA-Z0-9_-]`,
      );
    }
    if (typeof tool.inputSchema !== "object" || tool.inputSchema === null || Array.isArray(tool.inputSchema)) {
      throw new Error(`dynamic tool ${tool.name}: inputSchema must be a JSON Schema object`);
    }
    return {
      spec: {
        type: "function",
        name: tool.name,
        description: tool.description,
        parameters: tool.inputSchema,
        strict: false,
      },
      handler,
      supportsParallel: false,
    };
  });
};
