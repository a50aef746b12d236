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

const SAMPLES = 1024;
const BYTES_PER_TOKEN = 4;

/** The output's UTF-8 bytes: its text, its content items' text and image URLs, a shell call's stdout and stderr. */
export function outputBytes(item: ResponseInputItem): number {
  const output = item.output;
  if (typeof output === "string") return Buffer.byteLength(output);
  let bytes = 0;
  for (const part of output as ReadonlyArray<ContentItem | ShellCommandOutput>) {
    if ("stdout" in part) bytes += Buffer.byteLength(part.stdout) + Buffer.byteLength(part.stderr);
    else if (part.type === "input_text") bytes += Buffer.byteLength(part.text);
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
    this.samples[this.sampled++ % SAMPLES] = ms;
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
