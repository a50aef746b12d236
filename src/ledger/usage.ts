import type { ContentItem, ResponseInputItem, ShellCommandOutput } from "../protocol/index.js";

/** What one tool cost in a session (DESIGN section 18): `router.usage()`. */
export interface ToolUsage {
  /** Calls answered. */
  calls: number;
  /** Answered as failed, denials apart (invalid arguments, a failing or aborted handler, a deadline). */
  failures: number;
  /** Refused before running: by the policy stage (a rule, a hook, a person), a quota or loop detection. */
  denials: number;
  /** Calls whose arguments were repaired. */
  repairs: number;
  /** Handler time of the calls whose handler started, in ms: total, and the median and 95th percentile of the last 1,024. */
  handlerMs: { total: number; p50: number; p95: number };
  /** UTF-8 bytes of the outputs returned to the model. */
  bytes: number;
  /** Estimated tokens of those outputs: bytes / 4, rounded up, per output. */
  tokens: number;
}

/** A power of two: the ring index is a mask. */
const SAMPLES = 1024;
const BYTES_PER_TOKEN = 4;

/** Longest text counted here; a longer one goes to `Buffer.byteLength` (whose call costs more than a short loop). */
const COUNTED_HERE = 64;

/** UTF-8 bytes of `text`, as `Buffer.byteLength` counts them (a lone surrogate is U+FFFD, 3 bytes). */
function utf8Bytes(text: string): number {
  const n = text.length;
  if (n > COUNTED_HERE) return Buffer.byteLength(text);
  let bytes = n;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) bytes += 1;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < n && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // A surrogate pair: two units, four bytes.
      bytes += 2;
      i++;
    } else bytes += 2;
  }
  return bytes;
}

/** The output's UTF-8 bytes: its text, its content items' text and image URLs, a shell call's stdout and stderr. */
export function outputBytes(item: ResponseInputItem): number {
  const output = item.output;
  if (typeof output === "string") return utf8Bytes(output);
  let bytes = 0;
  for (const part of output as ReadonlyArray<ContentItem | ShellCommandOutput>) {
    if ("stdout" in part) bytes += utf8Bytes(part.stdout) + utf8Bytes(part.stderr);
    else if (part.type === "input_text") bytes += utf8Bytes(part.text);
    else bytes += part.image_url.length;
  }
  return bytes;
}

export const estimatedTokens = (bytes: number): number => Math.ceil(bytes / BYTES_PER_TOKEN);

/** The output's estimated tokens for the model (`tool_call_end`'s `tokens`). */
export const outputTokens = (item: ResponseInputItem): number => estimatedTokens(outputBytes(item));

/** One tool's counts; handler times kept in a ring of the last `SAMPLES`. */
export class ToolStats {
  calls = 0;
  successes = 0;
  denials = 0;
  repairs = 0;
  bytes = 0;
  tokens = 0;
  private handlerTotal = 0;
  private readonly samples = new Float64Array(SAMPLES);
  private sampled = 0;

  handler(ms: number): void {
    this.handlerTotal += ms;
    this.samples[this.sampled++ & (SAMPLES - 1)] = ms;
  }

  usage(): ToolUsage {
    const sorted = this.samples.slice(0, Math.min(this.sampled, SAMPLES)).sort();
    const at = (q: number): number => (sorted.length === 0 ? 0 : (sorted[Math.ceil(q * sorted.length) - 1] ?? 0));
    const { calls, denials, repairs, bytes, tokens } = this;
    // Denials are answered as failures too: they are told apart here, not per call.
    const failures = Math.max(0, calls - this.successes - denials);
    return {
      calls,
      failures,
      denials,
      repairs,
      handlerMs: { total: this.handlerTotal, p50: at(0.5), p95: at(0.95) },
      bytes,
      tokens,
    };
  }
}
