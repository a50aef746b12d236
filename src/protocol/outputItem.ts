import type { PayloadKind } from "./call.js";
import { outputText, type ContentItem, type ResponseInputItem, type ShellCommandOutput } from "./items.js";
import { mcpResultBody } from "./mcpContent.js";
import type { CallToolResult, ShellCallAnswer, ToolOutput } from "./toolOutput.js";
import { isRecord } from "../util/index.js";

/**
 * The item that answers a call (Codex `ToolOutput::to_response_item`): custom calls get
 * `custom_tool_call_output`, local shell calls `local_shell_call_output`, `shell_call` and
 * `apply_patch_call` their own output items, everything else `function_call_output`. All but
 * the last carry text: content items are flattened. A shell call answered with text only (a
 * failure, an abort, a hook's addition) gets it as one command's output: stderr and exit code 1
 * on failure, stdout and 0 otherwise.
 */
export function responseItemFor(
  callId: string,
  kind: PayloadKind,
  body: string | ContentItem[],
  success: boolean,
  shellCall?: ShellCallAnswer,
): ResponseInputItem {
  switch (kind) {
    case "custom":
      return { type: "custom_tool_call_output", call_id: callId, output: outputText(body) };
    case "local_shell":
      return { type: "local_shell_call_output", id: callId, output: outputText(body) };
    case "apply_patch_call":
      return {
        type: "apply_patch_call_output",
        call_id: callId,
        status: success ? "completed" : "failed",
        output: outputText(body),
      };
    case "shell_call": {
      const text = outputText(body);
      const output: ShellCommandOutput[] = shellCall?.output ?? [
        success
          ? { stdout: text, stderr: "", outcome: { type: "exit", exit_code: 0 } }
          : { stdout: "", stderr: text, outcome: { type: "exit", exit_code: 1 } },
      ];
      const max = shellCall?.maxOutputLength;
      return max === undefined
        ? { type: "shell_call_output", call_id: callId, output }
        : { type: "shell_call_output", call_id: callId, output, max_output_length: max };
    }
    default:
      return { type: "function_call_output", call_id: callId, output: body };
  }
}

/**
 * A handler's output, checked and reduced to what every answer needs. A function output is
 * its own body (no copy on the hot path): `success` defaults to true, `bounded` to false.
 */
export interface OutputBody {
  body: string | ContentItem[];
  success?: boolean | undefined;
  /** The handler already applied the truncation policy. */
  bounded?: boolean | undefined;
  /** A `shell_call`'s per-command results (answered as such unless a hook replaced the text). */
  shellCall?: ShellCallAnswer | undefined;
}

const isContentItem = (v: unknown): v is ContentItem =>
  isRecord(v) &&
  ((v["type"] === "input_text" && typeof v["text"] === "string") ||
    (v["type"] === "input_image" && typeof v["image_url"] === "string"));

/**
 * `ToolOutput` -> body, or a string naming what is wrong with it: handlers are plugin code, and
 * a malformed output must become a clear answer, not a crash further down.
 */
export function outputBody(output: ToolOutput): OutputBody | string {
  if (!isRecord(output)) return `expected an object, got ${output === null ? "null" : typeof output}`;
  const kind: unknown = (output as { kind?: unknown }).kind;
  if (kind === "function") {
    const { body, success } = output as Extract<ToolOutput, { kind: "function" }>;
    if (typeof body !== "string" && !(Array.isArray(body) && body.every(isContentItem))) {
      return "body must be a string or an array of input_text / input_image items";
    }
    if (success !== undefined && typeof success !== "boolean") return "success must be a boolean";
    return output as OutputBody;
  }
  if (kind !== "mcp") return `unknown kind ${JSON.stringify(String(kind))}`;
  const result: unknown = (output as { result?: unknown }).result;
  if (!isRecord(result)) return "an mcp output needs a result object";
  if (result["content"] !== undefined && !Array.isArray(result["content"])) return "result.content must be an array";
  const { body, success } = mcpResultBody(result as CallToolResult);
  return { body, success, bounded: false };
}
