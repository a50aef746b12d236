/** JSON Schema, draft-07 or 2020-12. */
export type JsonSchema = Record<string, unknown>;

export interface FunctionToolSpec {
  type: "function";
  name: string;
  description: string;
  parameters: JsonSchema;
  strict?: boolean;
}

export interface CustomToolSpec {
  type: "custom";
  name: string;
  description: string;
  format?: { type: "grammar"; syntax: "lark" | "regex"; definition: string };
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
