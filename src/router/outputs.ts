import type { ToolCall } from "../protocol/call.js";
import { outputText, type ContentItem, type ResponseInputItem } from "../protocol/items.js";
import type { CallToolResult, ToolOutput } from "../protocol/output.js";
import { truncateBody, type TruncationPolicy } from "../turn/truncation.js";

/** The output item type answers the item type: custom -> custom, local shell -> local shell. */
export function responseItemFor(call: ToolCall, body: string | ContentItem[]): ResponseInputItem {
  switch (call.payload.kind) {
    case "custom":
      return { type: "custom_tool_call_output", call_id: call.callId, output: outputText(body) };
    case "local_shell":
      return { type: "local_shell_call_output", id: call.callId, output: outputText(body) };
    default:
      return { type: "function_call_output", call_id: call.callId, output: body };
  }
}

type McpBlock = CallToolResult["content"][number];

function describeBlock(block: McpBlock): ContentItem {
  switch (block.type) {
    case "text":
      return { type: "input_text", text: block.text };
    case "image":
      return { type: "input_image", image_url: `data:${block.mimeType};base64,${block.data}` };
    case "audio":
      return { type: "input_text", text: `[audio: ${block.mimeType}, ${block.data.length} base64 chars]` };
    case "resource_link":
      return { type: "input_text", text: `[resource link: ${block.name} ${block.uri}]` };
    case "resource": {
      const r = block.resource;
      const mime = r.mimeType ? ` (${r.mimeType})` : "";
      return "text" in r && typeof r.text === "string"
        ? { type: "input_text", text: `[embedded resource: ${r.uri}${mime}]\n${r.text}` }
        : { type: "input_text", text: `[embedded resource: ${r.uri}${mime}, binary]` };
    }
    default:
      return { type: "input_text", text: `[unsupported content block: ${String((block as { type?: unknown }).type)}]` };
  }
}

/**
 * MCP result -> model body: `structuredContent` as its JSON text when present; otherwise text
 * blocks joined by newlines, or content items when there are images.
 */
export function mcpResultBody(result: CallToolResult): { body: string | ContentItem[]; success: boolean } {
  const success = result.isError !== true;
  if (result.structuredContent !== undefined && result.structuredContent !== null) {
    return { body: JSON.stringify(result.structuredContent), success };
  }
  const items = (Array.isArray(result.content) ? result.content : []).map(describeBlock);
  if (items.some((i) => i.type === "input_image")) return { body: items, success };
  return { body: outputText(items), success };
}

/**
 * Handler output -> the item the model gets, truncated by the policy unless already bounded,
 * with its success flag; `timing` is passed through so the result is built once.
 */
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

/** A failure answer, bounded like every other output. */
export function failureItem(call: ToolCall, message: string, policy: TruncationPolicy): ResponseInputItem {
  return responseItemFor(call, truncateBody(message, policy));
}
