import type { JsonSchema } from "../protocol/spec.js";

/** Which built-in tools `ToolRouter.fromConfig` adds. */
export interface ToolsConfig {
  /** Default "shell" (plus the `local_shell` alias). */
  shell?: "shell" | "shell_command" | false;
  /** Default "freeform". */
  applyPatch?: "freeform" | "function" | false;
  readFile?: boolean;
  listDir?: boolean;
  grepFiles?: boolean;
  viewImage?: boolean;
  updatePlan?: boolean;
  /** Default false. */
  testSyncTool?: boolean;
  /** Default 10_000. */
  execTimeoutMs?: number;
  /** Strict policy: a shell call not known to be safe runs exclusively (DESIGN §9). Default false. */
  shellNonSafeExclusive?: boolean;
  /** How long a dynamic tool call waits for the embedder's answer. Default 300_000. */
  dynamicToolTimeoutMs?: number;
}

/** A tool the embedder answers itself (event + `respondToDynamicToolCall`). */
export interface DynamicToolSpec {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}
