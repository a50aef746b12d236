import { dispatch, type DispatchHost, type PreparedCall } from "../dispatch/index.js";
import { texts } from "../protocol/index.js";
import type { TurnContext } from "../turn/index.js";
import { now } from "../util/index.js";
import type { Answers } from "./answers.js";
import { CallDeadlines } from "./callDeadlines.js";
import { CallRecord } from "./callRecord.js";
import { GRANTED, SharedExclusiveLock } from "./lock.js";
import { abortReason, type RuntimeLimits } from "./options.js";
import type { CallReports } from "./reports.js";
import { RunningCalls } from "./runningCalls.js";

/**
 * Where a runtime's accepted calls run (Codex `parallel.rs`): each waits for its slot in the
 * shared/exclusive lock (conflicting calls keep submission order), is dispatched when it has
 * it under its deadline, and gives both back once it settles. Abort fans out from here to
 * every call still running or queued.
 */
export class CallScheduler<Ctx> {
  private readonly lock: SharedExclusiveLock<CallRecord<Ctx>>;
  /** Calls whose handler may still run, queued ones included: abort fans out to them from one place. */
  private readonly running = new RunningCalls<CallRecord<Ctx>>();
  private readonly deadlines: CallDeadlines<Ctx>;
  /** Where every dispatched call reports (one object, not one per call). */
  private readonly host: DispatchHost<Ctx, CallRecord<Ctx>>;
  private abortReason: string | undefined;

  constructor(
    private readonly turn: TurnContext,
    private readonly answers: Answers<Ctx>,
    private readonly reports: CallReports,
    context: Ctx,
    /** A journaled turn's id (its resume's too), what the session ledger counts by. */
    turnId: string | undefined,
    limits: RuntimeLimits,
    shortestToolTimeoutMs: number | undefined,
  ) {
    // A queued call's turn: the lock calls back, and dispatch starts right there (no promise per waiter).
    this.lock = new SharedExclusiveLock<CallRecord<Ctx>>(limits.maxConcurrency, (record) => {
      this.begin(record);
    });
    this.deadlines = new CallDeadlines<Ctx>(
      {
        turn,
        // A copy: expiring a call runs listeners, which may abort and so change the list.
        running: () => [...this.running],
        settleText: (record, text) => {
          answers.text(record, text);
        },
        release: (record) => {
          this.release(record);
        },
      },
      limits.toolTimeoutMs,
      limits.leakGraceMs,
      shortestToolTimeoutMs,
    );
    this.host = {
      turn,
      context,
      announcesBegin: true,
      // A journaled turn's id is the turn (its resume too); another runtime's turn is its context.
      turnId,
      settled: (record, item, success) => {
        try {
          answers.dispatched(record, item, success, this.endOf(record));
        } catch (err) {
          this.settleError(record, err);
        }
        this.release(record);
      },
      failed: (record, err) => {
        this.settleError(record, err);
        this.release(record);
      },
      abortTurn: (record, text) => {
        answers.text(record, text);
        this.abort(texts.abortedByUser);
      },
    };
  }

  get aborted(): boolean {
    return this.abortReason !== undefined;
  }

  /** Starts a prepared call now, or queues it for its slot; aborted at once once the turn is. */
  start(prepared: PreparedCall<Ctx>, submittedAt: number, callSignal?: AbortSignal): CallRecord<Ctx> {
    const record = CallRecord.of(prepared, submittedAt);
    const { callId, toolName, payloadKind } = record;
    if (this.aborted || callSignal?.aborted) {
      this.reports.accepted(callId, toolName, payloadKind, true);
      prepared.abort(this.abortReason ?? (callSignal ? abortReason(callSignal) : texts.abortedByUser));
      this.answers.aborted(record);
      return record;
    }
    this.reports.accepted(callId, toolName, payloadKind, record.exclusive);
    this.running.add(record);
    callSignal?.addEventListener(
      "abort",
      () => {
        this.abortCall(record, abortReason(callSignal));
      },
      { once: true },
    );
    // Requested synchronously, so queue order is call order.
    const ticket = this.lock.request(record);
    if (ticket !== GRANTED) {
      record.ticket = ticket;
      return record;
    }
    record.lockGrantedAt = submittedAt;
    this.begin(record);
    return record;
  }

  /** Answers every pending call with its aborted output now; queued calls never start. */
  abort(reason?: string): void {
    if (this.aborted) return;
    this.abortReason = reason ?? texts.abortedByUser;
    for (const record of [...this.running]) this.abortCall(record, this.abortReason);
  }

  /** Aborts the running or queued call with this id; false when there is none. */
  cancel(callId: string): boolean {
    for (const record of this.running) {
      if (record.callId !== callId || record.settled) continue;
      this.abortCall(record, texts.abortedByUser);
      return true;
    }
    return false;
  }

  /**
   * The call holds its slot: dispatch it; the host hears the answer and the slot is released
   * there. Never throws (the lock calls it), and whatever escapes dispatch still answers the call
   * (invariant 9).
   */
  private begin(record: CallRecord<Ctx>): void {
    record.ticket = GRANTED;
    record.holdsSlot = true;
    const prepared = record.prepared;
    // Aborted while queued, or the runtime was aborted while the lock granted it: it never starts.
    if (!prepared || record.settled || prepared.aborted || this.aborted) {
      this.release(record);
      return;
    }
    // One clock read per start: the grant (the submit, when granted at once) is also the
    // handler's start when nothing waits before it.
    const grantedAt = (record.lockGrantedAt ??= now());
    // Before dispatch: an unknown tool or invalid arguments are answered (and released) within it.
    this.deadlines.start(record, grantedAt);
    dispatch(prepared, this.host, record, grantedAt);
  }

  /**
   * When the call ended: the handler's end as dispatch measured it (after bounding the output),
   * unless PostToolUse hooks ran after that or the handler never started.
   */
  private endOf(record: CallRecord<Ctx>): number {
    const startedAt = record.startedAt;
    return startedAt !== undefined && this.turn.hooks === undefined ? startedAt + record.handlerMs : now();
  }

  /**
   * The handler has settled (aborted or not), or was given up as leaked after its deadline: the
   * call leaves the running list and its deadline, and its slot goes back, each once.
   */
  private release(record: CallRecord<Ctx>): void {
    // Only an abort reads it (for `abortedOutput`), and the call is answered now: while the turn
    // lasts, a finished call holds its outcome and no more.
    if (record.prepared) record.prepared.invocation = undefined;
    this.running.delete(record);
    this.deadlines.end(record);
    if (!record.holdsSlot) return;
    record.holdsSlot = false;
    this.lock.release(record.exclusive);
  }

  /**
   * Aborts one call: it is answered with its aborted output, then its handler sees the signal. A
   * call still queued leaves the lock's queue now: it will never start.
   */
  private abortCall(record: CallRecord<Ctx>, reason: string): void {
    this.answers.aborted(record);
    record.prepared?.abort(reason);
    if (record.ticket !== GRANTED && this.lock.cancel(record.ticket)) {
      record.ticket = GRANTED;
      this.running.delete(record);
    }
  }

  /** What dispatch could not answer; the turn's first fatal error aborts the turn. */
  private settleError(record: CallRecord<Ctx>, err: unknown): void {
    const fatal = this.answers.error(record, err, this.aborted);
    if (fatal !== undefined) this.abort(fatal);
  }
}
