import type { ResponseItem, UnknownItem } from "../protocol/index.js";
import { isRecord } from "../util/index.js";
import { fromAnthropic, toAnthropicToolResults, type AnthropicContentBlock } from "./anthropic.js";
import { fromChatCompletions, toChatCompletionsMessages, type ChatToolCall, type ChatUserContentPart } from "./chat.js";
import type { OutputLike } from "./outcomes.js";

/** The provider shape of model items in and outputs back: `toolcall exec`'s lines, the sidecar's submits (DESIGN section 13). */
export type WireFormat = "responses" | "chat" | "anthropic";

export const WIRE_FORMATS: readonly WireFormat[] = ["responses", "chat", "anthropic"];

const isChatCall = (v: Record<string, unknown>): boolean => isRecord(v["function"]) || isRecord(v["custom"]);

/**
 * The format one line is in, when `--format` does not say: Chat Completions for an assistant
 * message with `tool_calls`, a completion (`choices`) or a tool call; Anthropic for a message
 * with a `content` array or a `tool_use` block; else a Responses item. An array is judged by
 * its first element.
 */
export function detectFormat(value: unknown): WireFormat {
  const v = Array.isArray(value) ? (value as unknown[])[0] : value;
  if (!isRecord(v)) return "responses";
  if ("tool_calls" in v || Array.isArray(v["choices"]) || isChatCall(v)) return "chat";
  if (v["type"] === "tool_use" || Array.isArray(v["content"])) return "anthropic";
  return "responses";
}

const kindOf = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

/**
 * One input line as Responses items. Throws a TypeError saying what the line should have been:
 * a line that fits none of its format's shapes is reported, never skipped.
 */
export function itemsOf(value: unknown, format: WireFormat): Array<ResponseItem | UnknownItem> {
  switch (format) {
    case "responses":
      if (!isRecord(value) || typeof value["type"] !== "string") {
        throw new TypeError(`expected a JSON object with a string "type", got ${kindOf(value)}`);
      }
      return [value as UnknownItem];
    case "chat": {
      // A whole completion: its (first) choice's message.
      const first: unknown = isRecord(value) && Array.isArray(value["choices"]) ? value["choices"][0] : undefined;
      const msg = isRecord(first) ? first["message"] : value;
      if (
        !Array.isArray(msg) &&
        !(isRecord(msg) && ("tool_calls" in msg || msg["role"] === "assistant" || isChatCall(msg)))
      ) {
        throw new TypeError("expected a Chat Completions assistant message, completion, tool_calls array or tool call");
      }
      return fromChatCompletions(msg as { tool_calls?: ChatToolCall[] });
    }
    case "anthropic": {
      const blocks = isRecord(value) && value["type"] === "tool_use" ? [value] : value;
      if (!Array.isArray(blocks) && !(isRecord(blocks) && Array.isArray(blocks["content"]))) {
        throw new TypeError("expected an Anthropic message, its content array or a tool_use block");
      }
      return fromAnthropic(blocks as AnthropicContentBlock[]);
    }
  }
}

/**
 * Each call's answer as one JSON value in the format its line came in, in call order: the
 * Responses output item, the Chat `tool` message, or the Anthropic `tool_result` block. Images
 * for Chat follow all of them in one user message.
 */
export function outputValues(answers: ReadonlyArray<{ output: OutputLike; format: WireFormat }>): unknown[] {
  const values: unknown[] = [];
  const images: ChatUserContentPart[] = [];
  for (const { output, format } of answers) {
    if (format === "responses") values.push("item" in output ? output.item : output);
    else if (format === "anthropic") values.push(...toAnthropicToolResults([output]));
    else {
      const [tool, withImages] = toChatCompletionsMessages([output]);
      values.push(tool);
      if (withImages?.role === "user") images.push(...withImages.content);
    }
  }
  if (images.length > 0) values.push({ role: "user", content: images });
  return values;
}
