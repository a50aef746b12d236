import type { ApplyPatchOperation } from "./items.js";

export interface ShellToolCallParams {
  command: string[];
  workdir?: string;
  timeoutMs?: number;
  env?: Record<string, string>;
}

/** A `shell_call`'s action: commands run one after another, each by the user's shell. */
export interface ShellCallParams {
  commands: string[];
  /** Per command. */
  timeoutMs?: number;
  /** Characters kept of each command's stdout and of its stderr (echoed in the output item). */
  maxOutputLength?: number;
}

/** The tagged union a handler receives (Codex `ToolPayload`). */
export type ToolPayload =
  | { kind: "function"; arguments: string }
  | { kind: "custom"; input: string }
  | { kind: "mcp"; server: string; tool: string; rawArguments: string }
  | { kind: "local_shell"; params: ShellToolCallParams }
  | { kind: "shell_call"; params: ShellCallParams }
  | { kind: "apply_patch_call"; operation: ApplyPatchOperation };

export type PayloadKind = ToolPayload["kind"];

export interface ToolCall {
  toolName: string;
  callId: string;
  payload: ToolPayload;
}
