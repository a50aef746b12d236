import { boundCaptured, type CapturedBytes, type TruncationPolicy } from "../../turn/index.js";
import { formatSeconds } from "../../util/index.js";

export interface ExecSummary {
  exitCode: number;
  durationMs: number;
  timedOut: boolean;
  /** The timeout that expired, for the timed-out message. */
  timeoutMs: number;
}

/** The line a timed-out command's output starts with. */
export const timedOutPrefix = (summary: ExecSummary): string =>
  summary.timedOut ? `command timed out after ${summary.timeoutMs} milliseconds\n` : "";

/**
 * The text the model gets for a finished command (DESIGN section 5):
 * `Exit code`, `Wall time`, `Total output lines` when truncated, then `Output:` and the
 * bounded content, which starts with `command timed out after {ms} milliseconds` on timeout.
 */
export function formatExecOutput(
  summary: ExecSummary,
  captured: CapturedBytes,
  policy: TruncationPolicy,
  /** The file holding the whole output (`spillDir`): the truncation marker names it. */
  spilled?: string,
): string {
  const prefix = timedOutPrefix(summary);
  const content = boundCaptured(prefix, captured, policy, undefined, spilled);
  const sections = [`Exit code: ${summary.exitCode}`, `Wall time: ${formatSeconds(summary.durationMs)} seconds`];
  if (content.truncated) sections.push(`Total output lines: ${content.totalLines}`);
  sections.push("Output:", content.text);
  return sections.join("\n");
}
