import { FunctionCallError, responseItemFor, texts, type ResponseInputItem } from "../protocol/index.js";
import { truncateBody, type TurnContext } from "../turn/index.js";
import { errorText, now } from "../util/index.js";
import type { CallRecord, ToolCallOutcome } from "./callRecord.js";
import { Drain } from "./drain.js";
import type { CallReports } from "./reports.js";

/**
 * Settles calls: each accepted call gets exactly one answer (the first wins: an abort or its
 * deadline may answer before its handler does), and the drain and the reports hear of it.
 */
export class Answers<Ctx> {
  readonly drain = new Drain<Ctx>();

  constructor(
    private readonly turn: TurnContext,
    private readonly reports: CallReports,
  ) {}

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

  /** The call's one answer was just settled (undefined: it had been already). */
  private settled(record: CallRecord<Ctx>, outcome: ToolCallOutcome | undefined): void {
    if (!outcome) return;
    this.drain.settled(record);
    this.reports.settled(outcome);
  }
}
