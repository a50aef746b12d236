import { outputTokens, type SessionLedger } from "../ledger/index.js";
import { FunctionCallError, responseItemFor, texts, type ResponseInputItem } from "../protocol/index.js";
import { emitEvent, truncateBody, type TurnContext } from "../turn/index.js";
import { errorText, now } from "../util/index.js";
import type { Acceptance } from "./acceptance.js";
import { CallRecord, type ToolCallOutcome } from "./callRecord.js";
import { Drain } from "./drain.js";
import { DrainedCall } from "./drainedCalls.js";
import type { CallReports } from "./reports.js";
import type { TurnLog } from "./turnLog.js";

/**
 * Settles calls: each accepted call gets exactly one answer (the first wins: an abort or its
 * deadline may answer before its handler does), and the drain and the reports hear of it.
 */
export class Answers<Ctx> {
  readonly drain: Drain<Ctx>;

  constructor(
    private readonly turn: TurnContext,
    private readonly reports: CallReports,
    /** The turn's journal: an outcome is handed out once its record is durable. */
    private readonly log: TurnLog | undefined,
    /** Keeps what a repeated call id needs of each call its drain takes. */
    acceptance: Acceptance<Ctx>,
    /** The router's session ledger: usage and loops hear every answer (DESIGN section 18). */
    private readonly ledger: SessionLedger,
  ) {
    this.drain = new Drain(acceptance);
  }

  /** Dispatch's answer, its handler's end at `end`. */
  dispatched(record: CallRecord<Ctx>, item: ResponseInputItem, success: boolean, end: number): void {
    this.settled(record, record.settle(item, success, false, end, record.prepared));
  }

  /** A failure text (not as aborted). */
  text(record: CallRecord<Ctx>, text: string): void {
    this.settled(record, record.settle(this.textItem(record, text), false, false, now()));
  }

  /**
   * The aborted output: `aborted after {s.s}s because the turn ended: ...` once another call's
   * fatal error ended the turn, else its handler's `abortedOutput` or `aborted by user after {s.s}s`.
   */
  aborted(record: CallRecord<Ctx>): void {
    if (record.settled) return;
    const elapsedMs = now() - record.submittedAt;
    const fatal = this.drain.fatal;
    let text: string;
    if (fatal && fatal.callId !== record.callId) text = texts.abortedTurnEnded(elapsedMs, fatal.message);
    else text = record.prepared?.abortedText(elapsedMs) ?? texts.abortedAfter(elapsedMs);
    this.settled(record, record.settle(this.textItem(record, text), false, true, now()));
  }

  /**
   * What dispatch could not answer: the turn's first `Fatal` error (returned, for the runtime to
   * abort with), or anything else, answered `tool {name} failed: ...`. Never throws.
   */
  error(record: CallRecord<Ctx>, err: unknown, turnAborted: boolean): string | undefined {
    if (record.settled) return undefined;
    const message = errorText(err);
    if (FunctionCallError.isFatal(err) && !turnAborted) {
      const fatalMessage = message ?? "Fatal error";
      this.drain.fatal = { callId: record.callId, message: fatalMessage, reported: false };
      this.text(record, fatalMessage);
      return fatalMessage;
    }
    this.turn.logger.error({ err: message, callId: record.callId }, "tool call failed outside its handler");
    this.text(record, texts.toolFailed(record.toolName, message));
    return undefined;
  }

  /** A failure answer, bounded like every other output. */
  private textItem(record: CallRecord<Ctx>, text: string): ResponseInputItem {
    return responseItemFor(record.callId, record.payloadKind, truncateBody(text, this.turn.truncationPolicy), false);
  }

  /** An answer a resumed turn's journal holds: handed out again, not journaled again. */
  recorded(record: CallRecord<Ctx>, item: ResponseInputItem, success: boolean, aborted: boolean): void {
    const outcome = record.settle(item, success, aborted, now());
    if (outcome) this.handOut(record, outcome, outputTokens(item));
  }

  /**
   * A call id seen before (`first`). The same call again gets the first one's output (a retried
   * request loses nothing): in the next drain once, or again after the first was drained.
   */
  replay(first: CallRecord<Ctx> | DrainedCall, submittedAt: number): void {
    const { callId, toolName } = first;
    emitEvent(this.turn, { type: "tool_call_replayed", callId, toolName });
    // Not drained yet: that drain answers it, once.
    if (!(first instanceof DrainedCall)) return;
    const copy = new CallRecord<Ctx>(callId, toolName, first.payloadKind, undefined, submittedAt);
    this.recorded(copy, first.item, first.success, first.aborted);
    this.drain.track(copy);
  }

  /** The call's one answer was just settled (undefined: it had been already). */
  private settled(record: CallRecord<Ctx>, outcome: ToolCallOutcome | undefined): void {
    if (!outcome) return;
    // Usage, loops: every answer, once, whoever gave it; now, while the call still holds its invocation.
    const tokens = this.ledger.settled(record.prepared, outcome);
    // Journaled: nobody is handed the output before its record is durable.
    if (this.log)
      this.log.outcome(outcome, () => {
        this.handOut(record, outcome, tokens);
      });
    else this.handOut(record, outcome, tokens);
  }

  private handOut(record: CallRecord<Ctx>, outcome: ToolCallOutcome, tokens: number): void {
    record.handOut();
    this.drain.settled(record);
    this.reports.settled(outcome, tokens);
  }
}
