export interface ShellToolCallParams {
  command: string[];
  workdir?: string;
  timeoutMs?: number;
  env?: Record<string, string>;
}

/** The tagged union a handler receives (Codex `ToolPayload`). */
export type ToolPayload =
  | { kind: "function"; arguments: string }
  | { kind: "custom"; input: string }
  | { kind: "mcp"; server: string; tool: string; rawArguments: string }
  | { kind: "local_shell"; params: ShellToolCallParams };

export type PayloadKind = ToolPayload["kind"];

export interface ToolCall {
  toolName: string;
  callId: string;
  payload: ToolPayload;
}
