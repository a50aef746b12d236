/** Model output items the router accepts (Responses API shapes; extra fields are ignored). */
export interface FunctionCallItem {
  type: "function_call";
  call_id: string;
  name: string;
  arguments: string;
  /** A namespaced call names the tool `{namespace}__{name}`. */
  namespace?: string;
  id?: string;
}

export interface CustomToolCallItem {
  type: "custom_tool_call";
  call_id: string;
  name: string;
  input: string;
  namespace?: string;
  id?: string;
}

export interface LocalShellExecAction {
  type: "exec";
  command: string[];
  working_directory?: string;
  timeout_ms?: number;
  env?: Record<string, string>;
}

export interface LocalShellCallItem {
  type: "local_shell_call";
  id?: string;
  call_id?: string;
  action: LocalShellExecAction;
}

/** A Responses API `shell_call`: `commands` run one after another by the user's shell. */
export interface ShellCallItem {
  type: "shell_call";
  call_id: string;
  id?: string | null;
  action: { commands: string[]; timeout_ms?: number | null; max_output_length?: number | null };
}

/** A Responses API `apply_patch_call` operation; `diff` is a V4A diff (create: every line `+`). */
export type ApplyPatchOperation =
  | { type: "create_file"; path: string; diff: string }
  | { type: "update_file"; path: string; diff: string }
  | { type: "delete_file"; path: string };

export interface ApplyPatchCallItem {
  type: "apply_patch_call";
  call_id: string;
  id?: string | null;
  operation: ApplyPatchOperation;
}

export type ResponseItem =
  FunctionCallItem | CustomToolCallItem | LocalShellCallItem | ShellCallItem | ApplyPatchCallItem;

/**
 * Responses items for tools the provider runs itself: not ours to answer, so the router ignores
 * them. Any other item whose type ends in `_call` and that cannot become a call is rejected
 * (DESIGN section 13: never silent).
 */
export const HOSTED_CALL_TYPES: ReadonlySet<string> = new Set([
  "web_search_call",
  "file_search_call",
  "computer_call",
  "code_interpreter_call",
  "image_generation_call",
  "mcp_call",
  "tool_search_call",
]);

/** Any other item (messages, reasoning, hosted tools): ignored by the router. */
export interface UnknownItem {
  type: string;
  [key: string]: unknown;
}

/** How closely the model looks at an image (Responses API); absent: the API's default. */
export type ImageDetail = "auto" | "low" | "high" | "original";

export type ContentItem =
  { type: "input_text"; text: string } | { type: "input_image"; image_url: string; detail?: ImageDetail };

/** What one command of a `shell_call` did. */
export interface ShellCommandOutput {
  stdout: string;
  stderr: string;
  outcome: { type: "exit"; exit_code: number } | { type: "timeout" };
}

/** What goes back to the model: items the Responses API accepts verbatim as input. */
export type ResponseInputItem =
  | { type: "function_call_output"; call_id: string; output: string | ContentItem[] }
  | { type: "custom_tool_call_output"; call_id: string; output: string }
  | { type: "local_shell_call_output"; id: string; output: string }
  | { type: "shell_call_output"; call_id: string; output: ShellCommandOutput[]; max_output_length?: number }
  | { type: "apply_patch_call_output"; call_id: string; status: "completed" | "failed"; output: string };

/** The call id an output item answers. */
export function outputCallId(item: ResponseInputItem): string {
  return item.type === "local_shell_call_output" ? item.id : item.call_id;
}

/** The text of an output, content items flattened to their text. */
export function outputText(output: string | ContentItem[]): string {
  if (typeof output === "string") return output;
  return flattenContent(output);
}

/** An output item's answer as text or content items (a shell call's commands as text). */
export function outputContent(item: ResponseInputItem): string | ContentItem[] {
  return item.type === "shell_call_output" ? shellOutputText(item.output) : item.output;
}

/** A shell call's per-command outputs as one text, for providers without the structured form. */
export function shellOutputText(outputs: readonly ShellCommandOutput[]): string {
  return outputs
    .map(({ stdout, stderr, outcome }) => {
      const status = outcome.type === "timeout" ? "timed out" : `exit code ${outcome.exit_code}`;
      return [`[${status}]`, stdout, stderr === "" ? "" : `stderr:\n${stderr}`].filter((s) => s !== "").join("\n");
    })
    .join("\n");
}

function flattenContent(items: ContentItem[]): string {
  return items
    .filter((c): c is { type: "input_text"; text: string } => c.type === "input_text")
    .map((c) => c.text)
    .join("\n");
}
