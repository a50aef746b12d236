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

export type ResponseItem = FunctionCallItem | CustomToolCallItem | LocalShellCallItem;

/** Any other item (messages, reasoning, hosted tools): ignored by the router. */
export interface UnknownItem {
  type: string;
  [key: string]: unknown;
}

/** How closely the model looks at an image (Responses API); absent: the API's default. */
export type ImageDetail = "auto" | "low" | "high" | "original";

export type ContentItem =
  { type: "input_text"; text: string } | { type: "input_image"; image_url: string; detail?: ImageDetail };

/** What goes back to the model: items the Responses API accepts verbatim as input. */
export type ResponseInputItem =
  | { type: "function_call_output"; call_id: string; output: string | ContentItem[] }
  | { type: "custom_tool_call_output"; call_id: string; output: string }
  | { type: "local_shell_call_output"; id: string; output: string };

/** The call id an output item answers. */
export function outputCallId(item: ResponseInputItem): string {
  return item.type === "local_shell_call_output" ? item.id : item.call_id;
}

/** The text of an output, content items flattened to their text. */
export function outputText(output: string | ContentItem[]): string {
  if (typeof output === "string") return output;
  return flattenContent(output);
}

export function flattenContent(items: ContentItem[]): string {
  return items
    .filter((c): c is { type: "input_text"; text: string } => c.type === "input_text")
    .map((c) => c.text)
    .join("\n");
}
