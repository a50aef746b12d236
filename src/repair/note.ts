import type { ResponseInputItem } from "../protocol/index.js";
import type { ArgumentRepair, TurnContext } from "../turn/index.js";
import { emitEvent } from "../turn/index.js";
import { repairNote } from "./arguments.js";

/**
 * The answer of a call whose arguments were repaired, the note its first line, so the model
 * learns what it got wrong. Only function and MCP calls are repaired: their answers are
 * `function_call_output` items.
 */
export function withRepairNote(item: ResponseInputItem, repairs: readonly ArgumentRepair[]): ResponseInputItem {
  if (item.type !== "function_call_output" || repairs.length === 0) return item;
  const note = repairNote(repairs);
  const output =
    typeof item.output === "string"
      ? `${note}\n${item.output}`
      : [{ type: "input_text" as const, text: note }, ...item.output];
  return { ...item, output };
}

/** Every repair is told: a `tool_call_repaired` event and a debug log line. */
export function reportRepairs(
  turn: TurnContext,
  call: { callId: string; toolName: string },
  repairs: readonly ArgumentRepair[],
): void {
  const { callId, toolName } = call;
  turn.logger.debug({ callId, toolName, repairs: repairs.map((r) => r.what) }, "tool call arguments repaired");
  emitEvent(turn, { type: "tool_call_repaired", callId, toolName, repairs: [...repairs] });
}
