import {
  detectFormat,
  itemsOf,
  outputValues,
  WIRE_FORMATS,
  type OutputLike,
  type WireFormat,
} from "../adapters/index.js";
import type { ToolCallRuntime } from "../runtime/index.js";
import { errorText } from "../util/index.js";

/** What `turn/submit` answers (DESIGN section 13): every refusal says why. */
export interface SidecarSubmitResult {
  accepted: boolean;
  /** The first accepted call (a Chat or Anthropic message may carry several: `callIds`). */
  callId?: string;
  callIds?: string[];
  reason?: string;
}

/** The `format` of `initialize`: one of the wire formats, or undefined (detected per submit). */
export function sidecarFormat(value: unknown): WireFormat | undefined | Error {
  if (value === undefined) return undefined;
  if (typeof value === "string" && (WIRE_FORMATS as readonly string[]).includes(value)) return value as WireFormat;
  return new Error(`expected one of ${WIRE_FORMATS.map((f) => JSON.stringify(f)).join(", ")}`);
}

/**
 * Submits one `turn/submit` item in the session's format (or the one it looks like): a
 * Responses item, a Chat message or tool call, an Anthropic message or `tool_use` block. Each
 * call's format is remembered so its output goes back in the same shape.
 */
export function submitInFormat(
  runtime: ToolCallRuntime,
  item: unknown,
  sessionFormat: WireFormat | undefined,
  formats: Map<string, WireFormat>,
): SidecarSubmitResult {
  const format = sessionFormat ?? detectFormat(item);
  let items;
  try {
    items = itemsOf(item, format);
  } catch (err) {
    return { accepted: false, reason: `not a ${format} tool call: ${errorText(err) ?? "unreadable"}` };
  }
  if (items.length === 0) return { accepted: false, reason: `the ${format} message carries no tool call` };
  const callIds: string[] = [];
  let reasons: string[] | undefined;
  for (const one of items) {
    const result = runtime.submit(one);
    if (result.accepted && result.callId !== undefined) {
      callIds.push(result.callId);
      // Absent is Responses: no entry per call in the common case.
      if (format !== "responses") formats.set(result.callId, format);
      else formats.delete(result.callId);
    } else {
      (reasons ??= []).push(
        result.reason ?? `items of type ${JSON.stringify(one.type)} are not tool calls; nothing to run`,
      );
    }
  }
  const [callId] = callIds;
  const reason = reasons?.join("; ");
  if (callId === undefined) return { accepted: false, reason: reason ?? "" };
  const result: SidecarSubmitResult = { accepted: true, callId };
  if (callIds.length > 1) result.callIds = callIds;
  if (reason !== undefined) result.reason = reason;
  return result;
}

/** One call's output in the format its call came in (Chat images follow as a user message). */
export function outputInFormat(output: OutputLike, format: WireFormat | undefined): unknown {
  // The common case without a list and a copy per output.
  if ((format ?? "responses") === "responses") return "item" in output ? output.item : output;
  const values = outputValues([{ output, format: format ?? "responses" }]);
  return values.length === 1 ? values[0] : values;
}
