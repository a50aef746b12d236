import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { outputContent, toMcpContent, type ResponseInputItem } from "../protocol/index.js";

/** A `tools/call` that failed, as an `isError` result the client's model reads. */
export function failure(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/** A call's output item as a `tools/call` result. */
export function resultOf(item: ResponseInputItem, success: boolean): CallToolResult {
  return { content: toMcpContent(outputContent(item)), isError: !success };
}
