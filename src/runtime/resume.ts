import type { PayloadKind, ResponseInputItem, ResponseItem, UnknownItem } from "../protocol/index.js";
import { readTurn, resumeStep, type JournaledTurn, type JournalRecord, type TurnContext } from "../turn/index.js";
import type { TurnLog } from "./turnLog.js";

/** A turn's journal read back (DESIGN section 17); a TypeError when the turn has no journal. */
export async function loadTurn(turn: TurnContext, turnId: string): Promise<JournaledTurn> {
  const journal = turn.journal;
  if (!journal) throw new TypeError("ToolCallRuntime.resume needs the turn's journal: createTurnContext({ journal })");
  const records: JournalRecord[] = [];
  for await (const record of journal.load(turnId)) records.push(record);
  return readTurn(records);
}

/** What `restore` asks of the runtime it resumes. */
export interface Restoring {
  /** Runs the journaled item again, as a call already in the journal. */
  run(item: ResponseItem | UnknownItem): void;
  /** Answers a call without running it: its recorded output, or (no item) `interrupted`. */
  answer(
    call: { callId: string; tool: string; kind: PayloadKind; item: ResponseItem | UnknownItem },
    item: ResponseInputItem | undefined,
    success: boolean,
    aborted: boolean,
  ): void;
}

/** Each journaled call, in call order: answered as recorded, interrupted, or run again. */
export function restore(state: JournaledTurn, log: TurnLog, to: Restoring): void {
  log.resumed = true;
  for (const call of state.calls) {
    const step = resumeStep(call);
    log.known(call.callId, call.tool);
    const kind = payloadKindOf(call.item);
    if (step.kind === "run") {
      if (call.approval) log.remember(call.callId, call.approval);
      to.run(call.item);
    } else if (step.kind === "answer") to.answer({ ...call, kind }, step.item, step.success, step.aborted);
    else to.answer({ ...call, kind }, undefined, false, false);
  }
}

/**
 * The tools of the journaled calls that ran (a `started` record: past the quotas, the policy
 * and the gate) and will not run again: what a resumed turn's quotas count before it goes on.
 */
export function ranBefore(state: JournaledTurn): string[] {
  return state.calls.filter((call) => call.started && resumeStep(call).kind !== "run").map((call) => call.tool);
}

/** The payload kind an item's answer takes (its output item's shape). */
function payloadKindOf(item: ResponseItem | UnknownItem): PayloadKind {
  switch (item.type) {
    case "custom_tool_call":
      return "custom";
    case "local_shell_call":
      return "local_shell";
    case "shell_call":
      return "shell_call";
    case "apply_patch_call":
      return "apply_patch_call";
    default:
      return "function";
  }
}
