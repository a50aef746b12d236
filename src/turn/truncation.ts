import type { ContentItem } from "../protocol/index.js";
import type { SpillStore } from "./spill.js";

/** One budget for every output: `bytes` counts UTF-8 bytes, `tokens` counts 4 bytes a token. */
export interface TruncationPolicy {
  mode: "bytes" | "tokens";
  limit: number;
}

export const DEFAULT_TRUNCATION_POLICY: TruncationPolicy = { mode: "bytes", limit: 10_000 };

const BYTES_PER_TOKEN = 4;
const EMPTY = Buffer.alloc(0);

/** The policy's budget in bytes. */
export function budgetBytes(policy: TruncationPolicy): number {
  const limit = Math.max(0, Math.floor(policy.limit));
  return policy.mode === "tokens" ? limit * BYTES_PER_TOKEN : limit;
}

/** UTF-8 continuation bytes (10xxxxxx) never start a character. */
const isContinuationByte = (byte: number | undefined): boolean => byte !== undefined && (byte & 0xc0) === 0x80;

/** Characters in `buf[start, end)`: bytes that start a UTF-8 sequence. */
export function countChars(buf: Uint8Array, start = 0, end = buf.length): number {
  let n = 0;
  for (let i = start; i < end; i++) if (((buf[i] as number) & 0xc0) !== 0x80) n++;
  return n;
}

export function countNewlines(buf: Uint8Array): number {
  let n = 0;
  let at = buf.indexOf(10);
  while (at !== -1) {
    n++;
    at = buf.indexOf(10, at + 1);
  }
  return n;
}

/**
 * A text whose middle may already be gone (a bounded capture of a command's output): its first
 * and last bytes, and what fell between. A whole text is a capture with nothing omitted.
 */
export interface CapturedBytes {
  head: Buffer;
  tail: Buffer;
  /** Bytes dropped between head and tail. */
  omittedBytes: number;
  /** Characters among the dropped bytes. */
  omittedChars: number;
  /** Newlines in the whole text, dropped bytes included. */
  newlines: number;
  /** Last byte of the whole text, undefined when it is empty. */
  lastByte: number | undefined;
}

export interface BoundedText {
  text: string;
  truncated: boolean;
  /** Lines of the whole text, counted like Rust's `str::lines`. */
  totalLines: number;
}

/**
 * The one truncation engine. `prefix` + the captured text, bounded to `budget` bytes: unchanged
 * within budget; otherwise the first half of the budget, `…{N} chars truncated…` (or `…{N}
 * tokens truncated…`), and the last half, cut on UTF-8 boundaries. It works on a capture whose
 * middle may already be gone: a capture that kept at least half the budget at each end gives
 * the result the whole text would. Without the `Total output lines` header: callers place it.
 */
export function boundCaptured(
  prefix: string,
  captured: CapturedBytes,
  policy: TruncationPolicy,
  budget = budgetBytes(policy),
  /** Where the whole text was kept (`spillDir`): the marker names it. */
  spilled?: string,
): BoundedText {
  const prefixBytes = prefix === "" ? EMPTY : Buffer.from(prefix, "utf8");
  const head = prefixBytes.length > 0 ? Buffer.concat([prefixBytes, captured.head]) : captured.head;
  const { tail, omittedBytes } = captured;
  const total = head.length + omittedBytes + tail.length;
  const lastByte = captured.lastByte ?? head[head.length - 1];
  const newlines = captured.newlines + countNewlines(prefixBytes);
  const totalLines = total === 0 ? 0 : lastByte === 10 ? newlines : newlines + 1;

  if (total <= budget && omittedBytes === 0) {
    return { text: Buffer.concat([head, tail]).toString("utf8"), truncated: false, totalLines };
  }

  // Positions are in the whole text; the tail starts at `tailOffset`.
  const tailOffset = total - tail.length;
  const byteAt = (p: number): number | undefined =>
    p < head.length ? head[p] : p >= tailOffset ? tail[p - tailOffset] : undefined;

  const half = Math.floor(budget / 2);
  let headEnd = Math.min(half, head.length);
  while (headEnd > 0 && isContinuationByte(byteAt(headEnd))) headEnd--;
  let tailStart = Math.max(headEnd, total - (budget - half));
  if (tailStart >= head.length && tailStart < tailOffset) tailStart = tailOffset;
  while (tailStart < total && isContinuationByte(byteAt(tailStart))) tailStart++;

  let marker: string;
  if (policy.mode === "tokens") {
    marker = `…${Math.ceil((tailStart - headEnd) / BYTES_PER_TOKEN)} tokens truncated…`;
  } else {
    let removed = countChars(head, headEnd, Math.min(tailStart, head.length));
    if (tailStart >= tailOffset) removed += captured.omittedChars + countChars(tail, 0, tailStart - tailOffset);
    marker = `…${removed} chars truncated…`;
  }
  if (spilled !== undefined) marker = `${marker.slice(0, -1)}; the whole output is in ${spilled}…`;
  const kept =
    tailStart < head.length ? Buffer.concat([head.subarray(tailStart), tail]) : tail.subarray(tailStart - tailOffset);
  return { text: head.toString("utf8", 0, headEnd) + marker + kept.toString("utf8"), truncated: true, totalLines };
}

/** A whole text as a capture with nothing omitted. */
function capturedBytes(buf: Buffer): CapturedBytes {
  return {
    head: buf,
    tail: EMPTY,
    omittedBytes: 0,
    omittedChars: 0,
    newlines: countNewlines(buf),
    lastByte: buf[buf.length - 1],
  };
}

function truncateToBudget(text: string, budget: number, policy: TruncationPolicy, spilled?: string): string {
  // Cheap exit: a UTF-16 string never has more than 3 UTF-8 bytes per code unit.
  if (text.length * 3 <= budget) return text;
  const buf = Buffer.from(text, "utf8");
  if (buf.length <= budget) return text;
  const { text: bounded, totalLines } = boundCaptured("", capturedBytes(buf), policy, budget, spilled);
  return `Total output lines: ${totalLines}\n\n${bounded}`;
}

/** Would `truncateText` cut this text? */
export function overBudget(text: string, policy: TruncationPolicy): boolean {
  const budget = budgetBytes(policy);
  return text.length * 3 > budget && Buffer.byteLength(text, "utf8") > budget;
}

/**
 * `truncateBody`, keeping a text body that gets cut whole in `spill` first, the marker naming
 * the file (DESIGN section 15: the model can page it with read_file).
 */
export async function truncateBodySpilling(
  body: string | ContentItem[],
  policy: TruncationPolicy,
  spill: SpillStore,
  callId: string,
): Promise<string | ContentItem[]> {
  if (typeof body !== "string" || !overBudget(body, policy)) return truncateBody(body, policy);
  const file = await spill.keep(callId, body);
  return truncateToBudget(body, budgetBytes(policy), policy, file);
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
