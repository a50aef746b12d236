import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ContentItem } from "./items.js";
import type { ShellCallAnswer } from "./outputs.js";

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
      /** A `shell_call`'s per-command results, already bounded; `body` is their text. */
      shellCall?: ShellCallAnswer;
    }
  | { kind: "mcp"; result: CallToolResult };
