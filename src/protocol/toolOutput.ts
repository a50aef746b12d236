import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ContentItem, ShellCommandOutput } from "./items.js";

export type { CallToolResult };

/** The structured answer of a `shell_call` (see `ToolOutput`). */
export interface ShellCallAnswer {
  output: ShellCommandOutput[];
  maxOutputLength?: number | undefined;
}

/** What a handler returns; dispatch turns it into a `ResponseInputItem` (outputItem.ts). */
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
