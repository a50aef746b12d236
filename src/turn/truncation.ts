import type { ContentItem } from "../protocol/items.js";

/** One budget for every output: `bytes` counts UTF-8 bytes, `tokens` counts 4 bytes a token. */
export interface TruncationPolicy {
  mode: "bytes" | "tokens";
  limit: number;
}

export const DEFAULT_TRUNCATION_POLICY: TruncationPolicy = { mode: "bytes", limit: 10_000 };

const BYTES_PER_TOKEN = 4;

function budgetBytes(policy: TruncationPolicy): number {
  const limit = Math.max(0, Math.floor(policy.limit));
  return policy.mode === "tokens" ? limit * BYTES_PER_TOKEN : limit;
}

/** Lines as Rust's `str::lines` counts them: a trailing newline does not open a new line. */
function countLines(text: string): number {
  if (text.length === 0) return 0;
  let n = 0;
  let at = text.indexOf("\n");
  while (at !== -1) {
    n++;
    at = text.indexOf("\n", at + 1);
  }
  return text.endsWith("\n") ? n : n + 1;
}

const isContinuation = (byte: number | undefined): boolean => byte !== undefined && (byte & 0xc0) === 0x80;

function truncateToBudget(text: string, budget: number, policy: TruncationPolicy): string {
  // Cheap exit: a UTF-16 string never has more than 3 UTF-8 bytes per code unit.
  if (text.length * 3 <= budget) return text;
  const buf = Buffer.from(text, "utf8");
  if (buf.length <= budget) return text;

  let headEnd = Math.floor(budget / 2);
  while (headEnd > 0 && isContinuation(buf[headEnd])) headEnd--;
  let tailStart = Math.max(headEnd, buf.length - (budget - Math.floor(budget / 2)));
  while (tailStart < buf.length && isContinuation(buf[tailStart])) tailStart++;

  let marker: string;
  if (policy.mode === "tokens") {
    marker = `…${Math.ceil((tailStart - headEnd) / BYTES_PER_TOKEN)} tokens truncated…`;
  } else {
    let removedChars = 0;
    for (let i = headEnd; i < tailStart; i++) if (!isContinuation(buf[i])) removedChars++;
    marker = `…${removedChars} chars truncated…`;
  }
  return (
    `Total output lines: ${countLines(text)}\n\n` +
    buf.toString("utf8", 0, headEnd) +
    marker +
    buf.toString("utf8", tailStart)
  );
}

/**
 * Bounds a text by the policy: unchanged within budget, otherwise a header with the original
 * line count, the head and tail halves of the budget (cut on UTF-8 boundaries) and a marker
 * saying how much was removed. The budget covers the content only.
 */
export function truncateText(text: string, policy: TruncationPolicy): string {
  return truncateToBudget(text, budgetBytes(policy), policy);
}

/**
 * Bounds an output body. Content items share one budget across their text; images are kept;
 * text items past the budget are dropped and reported as `[omitted {k} text items]`.
 */
export function truncateBody(body: string | ContentItem[], policy: TruncationPolicy): string | ContentItem[] {
  if (typeof body === "string") return truncateText(body, policy);
  let remaining = budgetBytes(policy);
  const total = body.reduce((n, c) => n + (c.type === "input_text" ? Buffer.byteLength(c.text) : 0), 0);
  if (total <= remaining) return body;

  const out: ContentItem[] = [];
  let omitted = 0;
  for (const item of body) {
    if (item.type !== "input_text") {
      out.push(item);
      continue;
    }
    if (remaining <= 0) {
      omitted++;
      continue;
    }
    const size = Buffer.byteLength(item.text);
    out.push(size <= remaining ? item : { type: "input_text", text: truncateToBudget(item.text, remaining, policy) });
    remaining -= size;
  }
  if (omitted > 0) out.push({ type: "input_text", text: `[omitted ${omitted} text items]` });
  return out;
}
