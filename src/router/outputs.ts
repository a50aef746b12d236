import type { ToolCall } from "../protocol/call.js";
import type { ContentItem, ResponseInputItem } from "../protocol/items.js";
import type { ToolOutput } from "../protocol/output.js";
import { mcpResultBody, responseItemFor as itemFor } from "../protocol/index.js";
import { truncateBody, type TruncationPolicy } from "../turn/truncation.js";

export { mcpResultBody };

export function responseItemFor(call: ToolCall, body: string | ContentItem[]): ResponseInputItem {
  return itemFor(call.callId, call.payload.kind, body);
}

export function outputToResult<T>(
  call: ToolCall,
  output: ToolOutput,
  policy: TruncationPolicy,
  timing: T,
): { item: ResponseInputItem; success: boolean; timing: T } {
  if (output.kind === "mcp") {
    const { body, success } = mcpResultBody(output.result);
    return { item: responseItemFor(call, truncateBody(body, policy)), success, timing };
  }
  const body = output.bounded === true ? output.body : truncateBody(output.body, policy);
  return { item: responseItemFor(call, body), success: output.success ?? true, timing };
}

export function failureItem(call: ToolCall, message: string, policy: TruncationPolicy): ResponseInputItem {
  return responseItemFor(call, truncateBody(message, policy));
}
