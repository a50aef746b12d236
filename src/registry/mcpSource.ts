import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { ConfiguredToolSpec, JsonSchema } from "../protocol/index.js";
import type { ToolHandler } from "./handler.js";

/** One MCP tool behind a qualified name. */
export interface McpToolRef {
  server: string;
  /** The raw tool name the server receives. */
  tool: string;
  inputSchema?: JsonSchema;
  supportsParallel: boolean;
  /** The server's hints; only its `readOnlyHint` makes the tool read-only to MCP clients. */
  annotations?: ToolAnnotations;
}

/**
 * The router's seam for MCP: exact lookup of qualified names, the tool specs listed right
 * now (they change on `list_changed`), and the handler that runs every `mcp` payload.
 * `McpConnectionManager` implements it.
 */
export interface McpToolSource {
  resolve(qualifiedName: string): McpToolRef | undefined;
  configuredSpecs(): ConfiguredToolSpec[];
  readonly handler: ToolHandler;
}
