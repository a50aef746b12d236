/** JSON Schema, draft-07 or 2020-12. */
export type JsonSchema = Record<string, unknown>;

/** MCP-style hints about what a tool does (DESIGN section 11); the built-ins set theirs. */
export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface FunctionToolSpec {
  type: "function";
  name: string;
  description: string;
  parameters: JsonSchema;
  strict?: boolean;
  annotations?: ToolAnnotations;
}

export interface CustomToolSpec {
  type: "custom";
  name: string;
  description: string;
  format?: { type: "grammar"; syntax: "lark" | "regex"; definition: string };
  annotations?: ToolAnnotations;
}

export interface LocalShellToolSpec {
  type: "local_shell";
}

export type ToolSpec = FunctionToolSpec | CustomToolSpec | LocalShellToolSpec;

export interface ConfiguredToolSpec {
  spec: ToolSpec;
  supportsParallelToolCalls: boolean;
}

/** The name a spec registers under; the hosted `local_shell` tool is named `local_shell`. */
export function specName(spec: ToolSpec): string {
  return spec.type === "local_shell" ? "local_shell" : spec.name;
}
