import type { ToolCall, ToolPayload } from "../protocol/call.js";
import type { ToolOutput } from "../protocol/output.js";
import type { TurnContext } from "../turn/context.js";

export type ToolKind = "function" | "mcp";

/** Everything a handler gets for one call. */
export interface ToolInvocation<Ctx = unknown> {
  callId: string;
  toolName: string;
  payload: ToolPayload;
  /**
   * Parsed and validated arguments for function and mcp payloads; the raw input string for
   * custom payloads; the `ShellToolCallParams` for local_shell payloads.
   */
  args: unknown;
  /**
   * Aborts when the call is aborted (runtime abort, call abort or fatal error elsewhere). Each
   * call has its own, created on first read; it may be a getter, so copy it explicitly when
   * cloning an invocation.
   */
  readonly signal: AbortSignal;
  turn: TurnContext;
  context: Ctx;
}

export interface ToolHandler<Ctx = unknown> {
  readonly kind: ToolKind;
  /** Default: function handlers take function payloads, mcp handlers mcp payloads. */
  matchesKind?(payload: ToolPayload): boolean;
  /** Synchronous; may only downgrade a parallel-capable call to exclusive. */
  supportsParallel?(call: ToolCall): boolean;
  /** Mutating calls wait for the turn's readiness gate. Default false. */
  isMutating?(inv: ToolInvocation<Ctx>): boolean | Promise<boolean>;
  handle(inv: ToolInvocation<Ctx>): Promise<ToolOutput>;
  /** What the call had produced when it was aborted, for the aborted output. */
  abortedOutput?(inv: ToolInvocation<Ctx>): string | undefined;
}

export function handlerMatchesKind(handler: ToolHandler<never>, payload: ToolPayload): boolean {
  if (handler.matchesKind) return handler.matchesKind(payload);
  return handler.kind === "function" ? payload.kind === "function" : payload.kind === "mcp";
}
