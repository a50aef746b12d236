import { randomBytes } from "node:crypto";
import { boundCaptured, budgetBytes, type TruncationPolicy } from "../../turn/index.js";
import type { SessionChunk } from "./session.js";

const DEFAULT_MAX_OUTPUT_TOKENS = 10_000;

/**
 * Codex's unified-exec answer: `Chunk ID`, `Wall time: {s.ssss} seconds`, `Process exited with
 * code {n}` or `Process running with session ID {id}`, `Original token count` (of the output
 * before truncation, 4 bytes a token), then `Output:` and the output bounded to
 * `max_output_tokens` (and the turn's own budget), a cut one under a `Warning: truncated
 * output` line and its `Total output lines`.
 */
export function formatUnifiedExec(
  chunk: SessionChunk,
  opts: {
    wallMs: number;
    sessionId: number | undefined;
    maxOutputTokens: number | undefined;
    policy: TruncationPolicy;
  },
): string {
  const tokens = opts.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
  const budget = chunkBudget(opts.maxOutputTokens, opts.policy);
  const bounded = boundCaptured("", chunk.output, { mode: "tokens", limit: tokens }, budget, chunk.spilled);
  const originalTokens = Math.ceil(chunk.totalBytes / 4);
  // Codex 0.171 says so above a cut output.
  const text = bounded.truncated
    ? `Warning: truncated output (original token count: ${originalTokens})
Total output lines: ${bounded.totalLines}

${bounded.text}`
    : bounded.text;
  const sections = [
    `Chunk ID: ${randomBytes(3).toString("hex")}`,
    `Wall time: ${(opts.wallMs / 1000).toFixed(4)} seconds`,
  ];
  if (chunk.exitCode !== undefined) sections.push(`Process exited with code ${chunk.exitCode}`);
  else if (opts.sessionId !== undefined) sections.push(`Process running with session ID ${opts.sessionId}`);
  sections.push(`Original token count: ${originalTokens}`, "Output:", text);
  return sections.join("\n");
}

/** Bytes of a chunk the model sees: `max_output_tokens` (4 bytes a token) within the turn's budget. */
export const chunkBudget = (maxOutputTokens: number | undefined, policy: TruncationPolicy): number =>
  Math.min((maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS) * 4, budgetBytes(policy));

/** Codex's bounds on how long a call waits for output. */
export const clampYield = (ms: number): number => Math.min(Math.max(ms, 250), 30_000);
