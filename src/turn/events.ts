import type { Logger } from "pino";
import type { ApprovalDecision, ApprovalRequest, DecidedBy, PayloadKind } from "../protocol/index.js";
import type { UserInputQuestion } from "./brokers.js";

/** Where the time of one call went, in milliseconds. */
export interface Timing {
  /** From submit until the handler started (lock and gate waits included); the whole call if it never started. */
  queuedMs: number;
  /** Waiting for the shared/exclusive lock. */
  lockWaitMs: number;
  /** Waiting for the readiness gate (mutating calls only). */
  gateWaitMs: number;
  handlerMs: number;
  totalMs: number;
}

/** Every event names the call it belongs to; events outside any call use empty strings. */
interface EventBase {
  callId: string;
  toolName: string;
}

export type PlanStatus = "pending" | "in_progress" | "completed";

/** What repair found wrong with a call's arguments, and what it did (DESIGN section 18). */
export interface ArgumentRepair {
  kind:
    | "double_encoded"
    | "code_fence"
    | "trailing_comma"
    | "comment"
    | "single_quotes"
    | "unquoted_key"
    | "missing_brace"
    | "coerced"
    | "bare_string";
  /** The sentence the model reads in its note, e.g. `removed a trailing comma`. */
  what: string;
}

export type ToolEvent =
  | (EventBase & { type: "tool_call_begin"; payloadKind: PayloadKind })
  | (EventBase & {
      type: "tool_call_end";
      success: boolean;
      aborted: boolean;
      timing: Timing;
      /** The output's estimated size for the model: its UTF-8 bytes / 4, rounded up. */
      tokens: number;
    })
  | (EventBase & { type: "tool_call_repaired"; repairs: ArgumentRepair[] })
  /** The same call with the same result `count` times in a row: answered, not run (the embedder may end the turn). */
  | (EventBase & { type: "tool_call_loop"; count: number })
  | (EventBase & { type: "tool_call_rejected"; reason: string })
  /** A call id came again with the same call: answered with the first call's output, not run. */
  | (EventBase & { type: "tool_call_replayed" })
  | (EventBase & { type: "exec_command_begin"; command: string[]; cwd: string })
  | (EventBase & { type: "exec_command_output_delta"; stream: "stdout" | "stderr"; chunk: string })
  | (EventBase & {
      type: "exec_command_end";
      exitCode: number | null;
      durationMs: number;
      timedOut: boolean;
      aborted: boolean;
      /** exec_command: what the command printed while the call waited (as the model reads it, bounded). */
      output?: string;
    })
  | (EventBase & { type: "mcp_tool_call_begin"; server: string; tool: string })
  | (EventBase & {
      type: "mcp_tool_call_progress";
      server: string;
      tool: string;
      progress: number;
      total?: number;
      message?: string;
    })
  | (EventBase & {
      type: "mcp_tool_call_end";
      server: string;
      tool: string;
      success: boolean;
      durationMs: number;
    })
  | (EventBase & {
      type: "mcp_startup_update";
      server: string;
      status: "starting" | "ready" | "failed";
      error?: string;
    })
  | (EventBase & {
      type: "mcp_startup_complete";
      ready: string[];
      failed: Array<{ server: string; error: string }>;
    })
  | (EventBase & {
      type: "plan_update";
      explanation?: string;
      plan: Array<{ step: string; status: PlanStatus }>;
    })
  | (EventBase & { type: "dynamic_tool_call_request"; arguments: unknown })
  | (EventBase & { type: "approval_request"; request: ApprovalRequest })
  | (EventBase & { type: "user_input_request"; questions: UserInputQuestion[] })
  | (EventBase & { type: "approval_decided"; decision: ApprovalDecision["decision"]; by: DecidedBy; message?: string })
  | (EventBase & { type: "tool_call_leaked"; timeoutMs: number });

export type ToolEventType = ToolEvent["type"];

/** Delivers an event; a listener that throws is logged and never disturbs the call. */
export function emitEvent(
  turn: { onEvent?: ((event: ToolEvent) => void) | undefined; logger: Logger },
  event: ToolEvent,
): void {
  if (!turn.onEvent) return;
  try {
    turn.onEvent(event);
  } catch (err) {
    turn.logger.warn({ err, eventType: event.type, callId: event.callId }, "onEvent listener threw");
  }
}
