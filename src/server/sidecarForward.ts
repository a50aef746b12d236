import type { ApprovalDecision, ContentItem } from "../protocol/index.js";
import type { ToolCallRuntime } from "../runtime/index.js";
import type { DynamicToolResponse, ToolEvent, UserInputResponse } from "../turn/index.js";
import { isRecord } from "../util/index.js";
import type { JsonRpcReply } from "./jsonRpc.js";

/**
 * A runtime request (an event a call waits on) forwarded to the client as a JSON-RPC request,
 * and how the client's reply reaches the waiting call. Forwarding a new kind is one entry in
 * `FORWARDED`.
 */
export interface Forwarded<E extends ToolEvent> {
  method: string;
  params(event: E): Record<string, unknown>;
  answer(runtime: ToolCallRuntime, callId: string, reply: JsonRpcReply): boolean;
}
/** By event type: the events a sidecar client answers. */
type ForwardTable = { [K in ToolEvent["type"]]?: Forwarded<Extract<ToolEvent, { type: K }>> };

export const FORWARDED: ForwardTable = {
  approval_request: {
    method: "approval/request",
    params: (e) => ({ request: e.request }),
    // The policy stage checks the decision: anything but a known one is a denial.
    answer: (runtime, callId, reply) =>
      runtime.respondToApproval(
        callId,
        reply.ok
          ? (reply.result as ApprovalDecision)
          : { decision: "deny", message: `the client failed: ${reply.message}` },
      ),
  },
  user_input_request: {
    method: "user_input/request",
    params: (e) => ({ questions: e.questions }),
    // A failed or malformed answer dismisses the questions: the model reads that nobody answered.
    answer: (runtime, callId, reply) => {
      try {
        return runtime.respondToUserInput(callId, reply.ok ? (reply.result as UserInputResponse | null) : null);
      } catch {
        return runtime.respondToUserInput(callId, null);
      }
    },
  },
  dynamic_tool_call_request: {
    method: "dynamic/call",
    params: (e) => ({ tool: e.toolName, arguments: e.arguments }),
    answer: (runtime, callId, reply) =>
      runtime.respondToDynamicToolCall(
        callId,
        reply.ok ? dynamicResponse(reply.result) : failedDynamic(`the client failed: ${reply.message}`),
      ),
  },
};

function failedDynamic(text: string): DynamicToolResponse {
  return { success: false, contentItems: [{ type: "input_text", text }] };
}

/** The client's `{success, contentItems}`, checked: the model must never see a malformed item. */
function dynamicResponse(result: unknown): DynamicToolResponse {
  if (!isRecord(result) || typeof result["success"] !== "boolean" || !Array.isArray(result["contentItems"])) {
    return failedDynamic("the client's answer was not {success: boolean, contentItems: [...]}");
  }
  const items: ContentItem[] = [];
  for (const item of result["contentItems"] as unknown[]) {
    if (isRecord(item) && item["type"] === "input_text" && typeof item["text"] === "string") {
      items.push({ type: "input_text", text: item["text"] });
    } else if (isRecord(item) && item["type"] === "input_image" && typeof item["image_url"] === "string") {
      items.push({ type: "input_image", image_url: item["image_url"] });
    } else {
      return failedDynamic("the client's answer has a content item that is neither input_text nor input_image");
    }
  }
  return { success: result["success"], contentItems: items };
}
