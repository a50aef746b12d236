import type { ApprovalDecision, ResponseInputItem, ResponseItem, UnknownItem } from "../protocol/index.js";

/**
 * What a turn's journal holds (DESIGN section 17), one record per line, in the order things
 * happened. `accepted` keeps the model's item so a resumed turn can run the calls that never
 * started; `started` is durable before a mutating call's handler runs, `outcome` before its
 * output reaches anyone.
 */
export type JournalRecord = { turnId: string } & JournalEvent;

/** A journal record without its turn. */
export type JournalEvent =
  | {
      type: "accepted";
      callId: string;
      tool: string;
      /** The model's item as submitted: what a resumed turn runs again. */
      item: ResponseItem | UnknownItem;
      /** By the tool's spec; the call's own say comes with `started`. */
      parallel: boolean;
      /** The journal's redaction changed it: it cannot be run again as the model sent it. */
      redacted?: boolean;
    }
  | { type: "started"; callId: string; mutating: boolean; idempotent: boolean }
  | { type: "outcome"; callId: string; item: ResponseInputItem; success: boolean; aborted: boolean }
  | { type: "approval_requested"; callId: string }
  | { type: "approval_decided"; callId: string; decision: ApprovalDecision }
  | { type: "turn_end" };

/**
 * Where a turn's records go. `append` is called in order and returns, when durability matters,
 * a promise that settles once the record (and every one before it) is on stable storage; a
 * rejection means it may not be. `load` yields a turn's records in order (none for an unknown
 * turn), ignoring a torn last line.
 */
export interface TurnJournal {
  append(record: JournalRecord): void | Promise<void>;
  load(turnId: string): AsyncIterable<JournalRecord>;
  close(): Promise<void>;
}

/** A turn's calls as its journal tells them, in accepted order. */
export interface JournaledCall {
  callId: string;
  tool: string;
  item: ResponseItem | UnknownItem;
  parallel: boolean;
  redacted: boolean;
  started?: { mutating: boolean; idempotent: boolean };
  outcome?: { item: ResponseInputItem; success: boolean; aborted: boolean };
  /** Asked and not answered when the journal ends (the person's answer is still wanted). */
  awaitingApproval: boolean;
  /** The person's answer, when it came before the journal ends. */
  approval?: ApprovalDecision;
}

/** A journal's records read back: the calls in order, and whether the turn ended. */
export interface JournaledTurn {
  calls: JournaledCall[];
  ended: boolean;
}

/** Folds a turn's records into its calls; records of unknown calls are ignored. */
export function readTurn(records: Iterable<JournalRecord>): JournaledTurn {
  const calls = new Map<string, JournaledCall>();
  let ended = false;
  for (const record of records) {
    if (record.type === "turn_end") {
      ended = true;
      continue;
    }
    if (record.type === "accepted") {
      if (!calls.has(record.callId))
        calls.set(record.callId, {
          callId: record.callId,
          tool: record.tool,
          item: record.item,
          parallel: record.parallel,
          redacted: record.redacted === true,
          awaitingApproval: false,
        });
      continue;
    }
    const call = calls.get(record.callId);
    if (!call) continue;
    switch (record.type) {
      case "started":
        call.started = { mutating: record.mutating, idempotent: record.idempotent };
        break;
      case "outcome":
        // The first outcome is the one handed out: a later one cannot exist, and is not believed.
        call.outcome ??= { item: record.item, success: record.success, aborted: record.aborted };
        call.awaitingApproval = false;
        break;
      case "approval_requested":
        call.awaitingApproval = call.outcome === undefined;
        break;
      case "approval_decided":
        call.awaitingApproval = false;
        call.approval = record.decision;
        break;
    }
  }
  return { calls: [...calls.values()], ended };
}

/** What a resumed turn does with a call its journal knows. */
export type ResumeStep =
  | { kind: "answer"; item: ResponseInputItem; success: boolean; aborted: boolean }
  /** It never ran, or running it again is safe: run it. */
  | { kind: "run" }
  /** It was running when the agent stopped, and may not run twice. */
  | { kind: "interrupted" };

/**
 * A recorded outcome is answered as it was; a call that started and may have taken effect is
 * run again only when it does not mutate or its tool says it is idempotent; the rest run, unless
 * the journal kept only a redacted copy of what the model sent.
 */
export function resumeStep(call: JournaledCall): ResumeStep {
  if (call.outcome) return { kind: "answer", ...call.outcome };
  if (call.started && call.started.mutating && !call.started.idempotent) return { kind: "interrupted" };
  if (call.redacted) return { kind: "interrupted" };
  return { kind: "run" };
}

/**
 * What dispatch tells the running turn's journal (the runtime sets it on its turn): a call is
 * about to start its handler, a person was asked, a person answered. `started` returns a
 * promise when the call must wait for the record to be durable (a mutating call that is not
 * idempotent: a resumed turn must know it may have taken effect).
 */
export interface CallJournal {
  /**
   * The turn was resumed from its journal, perhaps in a new process: what the old one held in
   * memory (exec sessions) may be gone.
   */
  readonly resumed: boolean;
  started(callId: string, mutating: boolean): Promise<void> | undefined;
  approvalRequested(callId: string): void;
  approvalDecided(callId: string, decision: ApprovalDecision): void;
  /** A person's answer a resumed turn already holds for this call: not asked again. */
  recordedApproval(callId: string): ApprovalDecision | undefined;
}
