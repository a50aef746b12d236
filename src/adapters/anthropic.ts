import type { FunctionCallItem } from "../protocol/index.js";
import { isRecord } from "../util/index.js";
import { dataUrlImage, toolAnswer, type OutputLike } from "./outcomes.js";

export interface AnthropicToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
}

/** A block of an assistant message's `content`; only `tool_use` blocks are calls for us. */
export type AnthropicContentBlock = AnthropicToolUseBlock | { type: string };

export interface AnthropicTextBlock {
  type: "text";
  text: string;
}

type AnthropicImageMediaType = "image/jpeg" | "image/png" | "image/gif" | "image/webp";

export interface AnthropicImageBlock {
  type: "image";
  source: { type: "base64"; media_type: AnthropicImageMediaType; data: string } | { type: "url"; url: string };
}

export interface AnthropicToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content: string | Array<AnthropicTextBlock | AnthropicImageBlock>;
  is_error: boolean;
}

/**
 * An Anthropic assistant message's content (or the message) -> Responses items: each
 * `tool_use` block becomes a `function_call` whose arguments are its `input` as JSON. Other
 * blocks (text, thinking, and `server_tool_use` / `mcp_tool_use`, which Anthropic runs itself)
 * are not calls for us. A block without id or name reaches the router as is, which rejects or
 * answers it by name.
 */
export function fromAnthropic(
  content: readonly AnthropicContentBlock[] | { content: readonly AnthropicContentBlock[] },
): FunctionCallItem[] {
  const blocks: unknown = Array.isArray(content) ? content : isRecord(content) ? content["content"] : undefined;
  if (!Array.isArray(blocks)) {
    throw new TypeError("fromAnthropic: expected a message's content array, or a message with one");
  }
  const items: FunctionCallItem[] = [];
  blocks.forEach((block: unknown, i) => {
    if (!isRecord(block)) throw new TypeError(`content[${i}]: expected a content block object`);
    if (block["type"] !== "tool_use") return;
    const { id, name, input } = block;
    items.push({
      type: "function_call",
      call_id: typeof id === "string" ? id : "",
      name: typeof name === "string" ? name : "",
      arguments: input === undefined ? "" : JSON.stringify(input),
    });
  });
  return items;
}

const ANTHROPIC_IMAGE_TYPES: ReadonlySet<string> = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

/** An `input_image` URL as an Anthropic image block; a text block saying why when it cannot be one. */
function imageBlock(url: string): AnthropicImageBlock | AnthropicTextBlock {
  const image = dataUrlImage(url);
  if (image && ANTHROPIC_IMAGE_TYPES.has(image.mediaType)) {
    const { mediaType, data } = image;
    return { type: "image", source: { type: "base64", media_type: mediaType as AnthropicImageMediaType, data } };
  }
  if (/^https?:\/\//.test(url)) return { type: "image", source: { type: "url", url } };
  const kind = url.startsWith("data:") ? url.slice(5, url.search(/[;,]/)) : "a non-web address";
  return { type: "text", text: `[image omitted: Anthropic accepts JPEG, PNG, GIF or WebP images, got ${kind}]` };
}

/**
 * Outputs -> `tool_result` blocks, one per call in order, for the next user message: text as a
 * string, or text and image blocks when the output has images; `is_error` for failed calls.
 */
export function toAnthropicToolResults(outputs: readonly OutputLike[]): AnthropicToolResultBlock[] {
  return outputs.map((o) => {
    const { callId, text, images, success } = toolAnswer(o);
    const content: AnthropicToolResultBlock["content"] =
      images.length === 0
        ? text
        : [...(text === "" ? [] : [{ type: "text" as const, text }]), ...images.map(imageBlock)];
    return { type: "tool_result", tool_use_id: callId, content, is_error: !success };
  });
}
