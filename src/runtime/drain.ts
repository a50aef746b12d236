import type { Acceptance } from "./acceptance.js";
import type { CallRecord, ToolCallOutcome } from "./callRecord.js";
import { FatalToolCallError } from "./errors.js";

/** The turn's first fatal error: which call, its message, and whether a drain threw it yet. */
export interface FatalError {
  callId: string;
  message: string;
  reported: boolean;
}

/**
 * Drain (DESIGN section 3, step 5): the calls accepted since the last drain, in submission
 * order, and the drain waiting for them. One wake per drain, not an await per call: the last
 * pending call to settle answers it from its own callback (calls submitted meanwhile are waited
 * for too). The turn's fatal error is thrown once, by the drain (or `handleToolCall`) that
 * holds the fatal call's outcome.
 */
export class Drain<Ctx> {
  fatal: FatalError | undefined;
  private readonly pending: CallRecord<Ctx>[] = [];
  /** Calls in `pending` not settled yet: the waiting drain is answered once, when none is left. */
  private unsettled = 0;
  /** The waiting drain: its promise and how to settle it (fields, not a waiter object per drain). */
  private draining: Promise<ToolCallOutcome[]> | undefined;
  private resolveDrain: ((outcomes: ToolCallOutcome[]) => void) | undefined;
  private rejectDrain: ((err: unknown) => void) | undefined;

  /** The calls accepted since the last drain, in acceptance order. */
  get undrained(): readonly CallRecord<Ctx>[] {
    return this.pending;
  }

  /** `acceptance` hears of every call a drain takes. */
  constructor(private readonly acceptance: Pick<Acceptance<Ctx>, "drained">) {}

  /** Adds an accepted call to the next drain (counted until it settles). */
  track(record: CallRecord<Ctx>): void {
    this.pending.push(record);
    if (record.handedOut) return;
    record.awaitedByDrain = true;
    this.unsettled++;
  }

  /** `record`'s outcome has just been handed out. */
  settled(record: CallRecord<Ctx>): void {
    if (record.awaitedByDrain && --this.unsettled === 0) this.answer();
  }

  /** Outcomes of every call accepted since the last drain, in submission order. */
  outcomes(): Promise<ToolCallOutcome[]> {
    // A drain called while another waits drains after it: what was submitted since.
    if (this.draining) {
      const next = (): Promise<ToolCallOutcome[]> => this.outcomes();
      return this.draining.then(next, next);
    }
    // Everything settled already: no executor, no resolving functions kept.
    if (this.unsettled === 0) {
      try {
        return Promise.resolve(this.take());
      } catch (err) {
        return Promise.reject(err);
      }
    }
    this.draining = new Promise<ToolCallOutcome[]>(this.wait);
    return this.draining;
  }

  /** The waiting drain's executor: made once per runtime, not a closure per `outcomes` call. */
  private readonly wait = (resolve: (outcomes: ToolCallOutcome[]) => void, reject: (err: unknown) => void): void => {
    this.resolveDrain = resolve;
    this.rejectDrain = reject;
  };

  /** Throws the turn's fatal error once, when the fatal call is among `outcomes`. */
  reportFatal(outcomes: ToolCallOutcome[]): void {
    const fatal = this.fatal;
    if (!fatal || fatal.reported) return;
    const own = outcomes.find((o) => o.callId === fatal.callId && !o.aborted);
    if (!own) return;
    fatal.reported = true;
    const others = outcomes.filter((o) => o !== own).map((o) => o.item);
    throw new FatalToolCallError(fatal.callId, fatal.message, others, own.item);
  }

  /** Every pending call has settled: the waiting drain, if any, takes their outcomes. */
  private answer(): void {
    const resolve = this.resolveDrain;
    const reject = this.rejectDrain;
    if (!resolve || !reject) return;
    this.draining = this.resolveDrain = this.rejectDrain = undefined;
    try {
      resolve(this.take());
    } catch (err) {
      reject(err);
    }
  }

  private take(): ToolCallOutcome[] {
    // `splice` rather than a fresh `[]` per drain: V8 may pretenure an array literal that long
    // batches kept alive, and then every dead pending array, tenured, keeps its calls' objects
    // alive through young collections (sequential submit + drain ran 2× slower in such a process).
    // The taken array is filled with the outcomes in place (no second array per drain).
    const taken = this.pending.splice(0) as unknown[];
    for (let i = 0; i < taken.length; i++) {
      const record = taken[i] as CallRecord<Ctx>;
      this.acceptance.drained(record);
      // Drain reads outcomes once every call in its batch has settled.
      taken[i] = record.result;
    }
    const outcomes = taken as ToolCallOutcome[];
    this.reportFatal(outcomes);
    return outcomes;
  }
}
