import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ContentItem } from "./items.js";

export type { CallToolResult };

/** What a handler returns; the router turns it into a `ResponseInputItem`. */
export type ToolOutput =
  | {
      kind: "function";
      body: string | ContentItem[];
      /** Defaults to true. */
      success?: boolean;
      /** True when the handler already applied the truncation policy. */
      bounded?: boolean;
    }
  | { kind: "mcp"; result: CallToolResult };
