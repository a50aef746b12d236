import { outputCallId, outputContent, type ContentItem, type ResponseInputItem } from "../protocol/index.js";

/**
 * What the output adapters take: the items `runtime.drain()` gives, or the outcomes of
 * `runtime.drainOutcomes()` (whose `success` says whether the call failed).
 */
export type OutputLike = ResponseInputItem | { item: ResponseInputItem; success?: boolean };

/** One answered call, reduced to what every provider needs. */
export interface ToolAnswer {
  callId: string;
  text: string;
  /** `image_url`s of the output's `input_image` items (data URLs or web addresses). */
  images: string[];
  /** False when the call failed; a bare item is a failure only when it says so itself. */
  success: boolean;
}

export function toolAnswer(o: OutputLike): ToolAnswer {
  const item = "item" in o ? o.item : o;
  const content: string | ContentItem[] = outputContent(item);
  const success = "item" in o && o.success !== undefined ? o.success : ownSuccess(item);
  if (typeof content === "string") return { callId: outputCallId(item), text: content, images: [], success };
  const text: string[] = [];
  const images: string[] = [];
  for (const c of content) {
    if (c.type === "input_text") text.push(c.text);
    else images.push(c.image_url);
  }
  return { callId: outputCallId(item), text: text.join("\n"), images, success };
}

function ownSuccess(item: ResponseInputItem): boolean {
  if (item.type === "apply_patch_call_output") return item.status === "completed";
  if (item.type === "shell_call_output") {
    return item.output.every((o) => o.outcome.type === "exit" && o.outcome.exit_code === 0);
  }
  return true;
}

/** A base64 `data:` URL split into its media type and data; undefined for any other address. */
export function dataUrlImage(url: string): { mediaType: string; data: string } | undefined {
  const [, mediaType, data] = /^data:([\w.+-]+\/[\w.+-]+);base64,(.*)$/s.exec(url) ?? [];
  return mediaType !== undefined && data !== undefined ? { mediaType, data } : undefined;
}
