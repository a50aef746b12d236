import type { CustomToolCallItem, FunctionCallItem } from "../protocol/index.js";
import { isRecord } from "../util/index.js";
import { toolAnswer, type OutputLike } from "./outcomes.js";

/** A `tool_calls` entry of a Chat Completions assistant message. */
export type ChatToolCall =
  | { id: string; type: "function"; function: { name: string; arguments: string } }
  | { id: string; type: "custom"; custom: { name: string; input: string } };

export interface ChatToolMessage {
  role: "tool";
  tool_call_id: string;
  content: string;
}

export type ChatUserContentPart = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };

export interface ChatUserMessage {
  role: "user";
  content: ChatUserContentPart[];
}

export type ChatMessage = ChatToolMessage | ChatUserMessage;

const where = (i: number): string => `tool_calls[${i}]`;

/**
 * A Chat Completions assistant message (or its `tool_calls` array, or one entry) -> Responses
 * items the router takes: `function` entries become `function_call`, `custom` entries
 * `custom_tool_call`. Arguments some servers send as an object (Ollama) are turned into JSON
 * text. A missing id or name reaches the router as is, which answers or rejects it by name;
 * an entry of another type throws a TypeError naming it, never dropped.
 */
export function fromChatCompletions(
  msg: { tool_calls?: readonly ChatToolCall[] | null } | readonly ChatToolCall[] | ChatToolCall,
): Array<FunctionCallItem | CustomToolCallItem> {
  const calls: unknown = Array.isArray(msg)
    ? msg
    : isRecord(msg) && ("function" in msg || "custom" in msg)
      ? [msg]
      : isRecord(msg)
        ? (msg["tool_calls"] ?? [])
        : undefined;
  if (!Array.isArray(calls)) {
    throw new TypeError("fromChatCompletions: expected an assistant message, a tool_calls array or a tool call");
  }
  return calls.map((call: unknown, i): FunctionCallItem | CustomToolCallItem => {
    if (!isRecord(call)) throw new TypeError(`${where(i)}: expected an object, got ${describe(call)}`);
    const id = typeof call["id"] === "string" ? call["id"] : "";
    const type = call["type"] ?? ("custom" in call ? "custom" : "function");
    if (type === "function") {
      const fn = isRecord(call["function"]) ? call["function"] : {};
      const args = fn["arguments"];
      return {
        type: "function_call",
        call_id: id,
        name: typeof fn["name"] === "string" ? fn["name"] : "",
        arguments: typeof args === "string" ? args : args == null ? "" : JSON.stringify(args),
      };
    }
    if (type === "custom") {
      const custom = isRecord(call["custom"]) ? call["custom"] : {};
      return {
        type: "custom_tool_call",
        call_id: id,
        name: typeof custom["name"] === "string" ? custom["name"] : "",
        input: typeof custom["input"] === "string" ? custom["input"] : "",
      };
    }
    throw new TypeError(`${where(i)}.type: expected "function" or "custom", got ${JSON.stringify(type)}`);
  });
}

/**
 * Outputs -> the messages that answer them: one `{ role: "tool", tool_call_id, content }` per
 * call, in order. A tool message carries text only in most Chat backends, so images follow
 * all of them in one `{ role: "user" }` message of `image_url` parts, each call's introduced by
 * a text part naming it (a user message between tool messages would break the pairing).
 */
export function toChatCompletionsMessages(outputs: readonly OutputLike[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  const parts: ChatUserContentPart[] = [];
  for (const o of outputs) {
    const { callId, text, images } = toolAnswer(o);
    const note = images.length === 0 ? "" : `[${images.length} image(s) in the next user message]`;
    messages.push({ role: "tool", tool_call_id: callId, content: [text, note].filter((s) => s !== "").join("\n") });
    if (images.length === 0) continue;
    parts.push({ type: "text", text: `Image output of tool call ${callId}:` });
    for (const url of images) parts.push({ type: "image_url", image_url: { url } });
  }
  if (parts.length > 0) messages.push({ role: "user", content: parts });
  return messages;
}

function describe(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
}
