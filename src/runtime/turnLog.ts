import type { Logger } from "pino";
import type { ApprovalDecision, ResponseItem, UnknownItem } from "../protocol/index.js";
import type { CallJournal, JournalEvent, JournalRecord, TurnJournal } from "../turn/index.js";
import { errorText } from "../util/index.js";
import type { ToolCallOutcome } from "./callRecord.js";

/**
 * One runtime's side of its turn's journal (DESIGN section 17): what it records, in order, and
 * when it waits. An output waits for its record to be durable before anyone is handed it; a
 * failing journal is logged and never withholds an output. A mutating call that is not
 * idempotent waits for its `started` record, and does not run when that cannot be written.
 */
export class TurnLog implements CallJournal {
  private readonly tools = new Map<string, string>();
  private readonly decisions = new Map<string, ApprovalDecision>();
  /** Set by `ToolCallRuntime.resume`. */
  resumed = false;

  constructor(
    private readonly journal: TurnJournal,
    readonly turnId: string,
    private readonly logger: Logger,
    private readonly isIdempotent: (toolName: string) => boolean,
  ) {}

  /** A person's answers a resumed turn holds: given to their calls instead of asking again. */
  remember(callId: string, decision: ApprovalDecision): void {
    this.decisions.set(callId, decision);
  }

  accepted(callId: string, tool: string, item: ResponseItem | UnknownItem, parallel: boolean): void {
    this.tools.set(callId, tool);
    this.quietly(this.write({ type: "accepted", callId, tool, item, parallel }));
  }

  /** Also what a resumed turn knows of calls it accepted before (no new `accepted` record). */
  known(callId: string, tool: string): void {
    this.tools.set(callId, tool);
  }

  started(callId: string, mutating: boolean): Promise<void> | undefined {
    const idempotent = this.isIdempotent(this.tools.get(callId) ?? "");
    const written = this.write({ type: "started", callId, mutating, idempotent });
    if (mutating && !idempotent) return written ?? Promise.resolve();
    this.quietly(written);
    return undefined;
  }

  /** Records the outcome; `handOut` runs once it is durable (or the journal failed, logged). */
  outcome(outcome: ToolCallOutcome, handOut: () => void): void {
    const { callId, item, success, aborted } = outcome;
    const written = this.write({ type: "outcome", callId, item, success, aborted });
    if (!written) {
      handOut();
      return;
    }
    written.then(handOut, (err: unknown) => {
      this.failed(err, callId);
      handOut();
    });
  }

  approvalRequested(callId: string): void {
    this.quietly(this.write({ type: "approval_requested", callId }));
  }

  approvalDecided(callId: string, decision: ApprovalDecision): void {
    this.quietly(this.write({ type: "approval_decided", callId, decision }));
  }

  recordedApproval(callId: string): ApprovalDecision | undefined {
    const decision = this.decisions.get(callId);
    this.decisions.delete(callId);
    return decision;
  }

  /** The turn is over: `turn_end`, durable when this settles. */
  async end(): Promise<void> {
    await this.write({ type: "turn_end" });
  }

  /** Appends; a promise when the journal reports durability or failed. Never throws. */
  private write(event: JournalEvent): Promise<void> | undefined {
    try {
      const record: JournalRecord = { turnId: this.turnId, ...event };
      const result = this.journal.append(record);
      return result === undefined ? undefined : Promise.resolve(result);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** For records nothing waits on: a failure is logged, not thrown. */
  private quietly(written: Promise<void> | undefined): void {
    written?.catch((err: unknown) => {
      this.failed(err);
    });
  }

  private failed(err: unknown, callId?: string): void {
    this.logger.error({ err: errorText(err), turnId: this.turnId, callId }, "the turn's journal failed");
  }
}
