import { type ContentItem, outputText } from "./items.js";
import type { CallToolResult } from "./toolOutput.js";

type McpBlock = CallToolResult["content"][number];

/** One MCP content block as the model sees it; blocks it cannot take become short descriptions. */
function blockToItem(block: McpBlock): ContentItem {
  switch (block.type) {
    case "text":
      return { type: "input_text", text: block.text };
    case "image":
      return { type: "input_image", image_url: `data:${block.mimeType};base64,${block.data}` };
    case "audio":
      return { type: "input_text", text: `[audio: ${block.mimeType}, ${block.data.length} base64 chars]` };
    case "resource_link":
      return { type: "input_text", text: `[resource link: ${block.name} ${block.uri}]` };
    case "resource": {
      const r = block.resource;
      const mime = r.mimeType ? ` (${r.mimeType})` : "";
      return "text" in r && typeof r.text === "string"
        ? { type: "input_text", text: `[embedded resource: ${r.uri}${mime}]\n${r.text}` }
        : { type: "input_text", text: `[embedded resource: ${r.uri}${mime}, binary]` };
    }
    default:
      return { type: "input_text", text: `[unsupported content block: ${String((block as { type?: unknown }).type)}]` };
  }
}

/**
 * MCP result -> model body: `structuredContent` as its JSON text when present (plus the
 * content's images, which the JSON cannot carry to the model as pictures); otherwise text
 * blocks joined by newlines, or content items when there are images.
 */
export function mcpResultBody(result: CallToolResult): { body: string | ContentItem[]; success: boolean } {
  const success = result.isError !== true;
  const content = Array.isArray(result.content) ? result.content : [];
  const structured = result.structuredContent !== undefined && result.structuredContent !== null;
  // Most results are one text block: its text, without the item arrays below.
  const only = content.length === 1 ? content[0] : undefined;
  if (!structured && only?.type === "text") return { body: only.text, success };
  const items = content.map(blockToItem);
  const images = items.filter((i) => i.type === "input_image");
  if (structured) {
    const json = JSON.stringify(result.structuredContent);
    if (images.length === 0) return { body: json, success };
    const text: ContentItem = { type: "input_text", text: withoutImageData(json, result.content) };
    return { body: [text, ...images], success };
  }
  return { body: images.length > 0 ? items : outputText(items), success };
}

/**
 * Servers like server-filesystem echo the image blocks inside `structuredContent`; the model
 * gets those pictures as images, so their base64 is not repeated in the JSON text.
 */
function withoutImageData(json: string, content: CallToolResult["content"]): string {
  let out = json;
  for (const block of content) {
    if (block.type === "image" && block.data.length > 64) out = out.split(JSON.stringify(block.data)).join('"[image]"');
  }
  return out;
}

/** Model body -> MCP content, for serving our tools over MCP: images go back to image blocks. */
export function toMcpContent(output: string | ContentItem[]): CallToolResult["content"] {
  if (typeof output === "string") return [{ type: "text", text: output }];
  return output.map((item) => {
    if (item.type === "input_text") return { type: "text" as const, text: item.text };
    const match = /^data:([^;,]+);base64,(.*)$/s.exec(item.image_url);
    return match
      ? { type: "image" as const, mimeType: match[1] as string, data: match[2] as string }
      : { type: "text" as const, text: `[image: ${item.image_url}]` };
  });
}
