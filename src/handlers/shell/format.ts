import type { TruncationPolicy } from "../../turn/truncation.js";
import { countChars, isContinuationByte, type CapturedBytes } from "./outputBuffer.js";

const BYTES_PER_TOKEN = 4;

/** The policy's budget in bytes (tokens count 4 bytes each, as in the core truncation). */
export function policyBudgetBytes(policy: TruncationPolicy): number {
  const limit = Math.max(0, Math.floor(policy.limit));
  return policy.mode === "tokens" ? limit * BYTES_PER_TOKEN : limit;
}

export interface BoundedContent {
  text: string;
  truncated: boolean;
  /** Lines of the whole content, counted like Rust's `str::lines`. */
  totalLines: number;
}

/**
 * `prefix` + the captured output, bounded by the policy the way `truncateText` bounds a full
 * string (same head/tail split, boundaries and marker), but working on a capture whose middle
 * may already be gone: the capture keeps at least half the budget at each end, so the result is
 * the one the whole text would give. Without the `Total output lines` header: the exec format
 * puts it on its own line.
 */
export function boundContent(prefix: string, captured: CapturedBytes, policy: TruncationPolicy): BoundedContent {
  const prefixBytes = Buffer.from(prefix, "utf8");
  const head = prefixBytes.length > 0 ? Buffer.concat([prefixBytes, captured.head]) : captured.head;
  const { tail, omittedBytes } = captured;
  const total = head.length + omittedBytes + tail.length;
  const lastByte = captured.lastByte ?? head[head.length - 1];
  const newlines = captured.newlines + prefixBytes.filter((b) => b === 10).length;
  const totalLines = total === 0 ? 0 : lastByte === 10 ? newlines : newlines + 1;

  const budget = policyBudgetBytes(policy);
  if (total <= budget && omittedBytes === 0) {
    return { text: Buffer.concat([head, tail]).toString("utf8"), truncated: false, totalLines };
  }

  // Positions are in the whole content; the tail starts at `tailOffset`.
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
  const kept =
    tailStart < head.length ? Buffer.concat([head.subarray(tailStart), tail]) : tail.subarray(tailStart - tailOffset);
  return { text: head.toString("utf8", 0, headEnd) + marker + kept.toString("utf8"), truncated: true, totalLines };
}

export interface ExecSummary {
  exitCode: number;
  durationMs: number;
  timedOut: boolean;
  /** The timeout that expired, for the timed-out message. */
  timeoutMs: number;
}

export const formatWallTime = (ms: number): string => (ms / 1000).toFixed(1);

/**
 * The text the model gets for a finished command (DESIGN section 5):
 * `Exit code`, `Wall time`, `Total output lines` when truncated, then `Output:` and the
 * bounded content, which starts with `command timed out after {ms} milliseconds` on timeout.
 */
export function formatExecOutput(summary: ExecSummary, captured: CapturedBytes, policy: TruncationPolicy): string {
  const prefix = summary.timedOut ? `command timed out after ${summary.timeoutMs} milliseconds\n` : "";
  const content = boundContent(prefix, captured, policy);
  const sections = [`Exit code: ${summary.exitCode}`, `Wall time: ${formatWallTime(summary.durationMs)} seconds`];
  if (content.truncated) sections.push(`Total output lines: ${content.totalLines}`);
  sections.push("Output:", content.text);
  return sections.join("\n");
}
