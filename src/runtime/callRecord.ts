import type { PreparedCall } from "../dispatch/index.js";
import type { PayloadKind, ResponseInputItem } from "../protocol/index.js";
import type { Timing } from "../turn/index.js";
import { GRANTED, type LockRequest } from "./lock.js";
import type { RunningLinks } from "./runningCalls.js";

export const enum DeadlineState {
  None,
  Live,
  /** Answered at its deadline; its slot waits `leakGraceMs` at most. */
  Expired,
}

export interface ToolCallOutcome {
  callId: string;
  toolName: string;
  item: ResponseInputItem;
  success: boolean;
  aborted: boolean;
  timing: Timing;
}

/**
 * What the runtime keeps of one accepted call, from submit until its outcome is settled and its
 * lock slot released: its place in the lock's queue and in the running list, its deadline's
 * state, its outcome. The call itself (and its abort signal, invocation and dispatch timing) is
 * the prepared call it holds. The outcome promise is made only when something awaits it (only
 * `handleToolCall` does; drain reads `result`).
 */
export class CallRecord<Ctx> implements LockRequest, RunningLinks<CallRecord<Ctx>> {
  /** The settled outcome, readable without awaiting. */
  result: ToolCallOutcome | undefined;
  /** Runs alone (the lock's exclusive mode). */
  readonly exclusive: boolean;
  /** Its place in the lock's queue while waiting (GRANTED once it holds a slot, or never queued). */
  ticket = GRANTED;
  /** Holds its lock slot: released once, when the handler settles or as leaked. */
  holdsSlot = false;
  /** Counted among the runtime's unsettled drainable calls until its outcome is handed out. */
  awaitedByDrain = false;
  /** Its outcome was handed out (after its journal record, when journaled): drain and `outcome` may read it. */
  handedOut = false;
  /** Its neighbours among the runtime's running calls. */
  prevRunning: CallRecord<Ctx> | undefined;
  nextRunning: CallRecord<Ctx> | undefined;
  lockGrantedAt: number | undefined;
  /** Counted by the deadline timer (`Live`), or past its deadline (`Expired`); one field, small records. */
  deadline: DeadlineState = DeadlineState.None;
  private outcomePromise: Promise<ToolCallOutcome> | undefined;
  private resolveOutcome: ((o: ToolCallOutcome) => void) | undefined;

  constructor(
    readonly callId: string,
    readonly toolName: string,
    readonly payloadKind: PayloadKind,
    /** Undefined for an item that could not become a call (it is answered with its error). */
    readonly prepared: PreparedCall<Ctx> | undefined,
    readonly submittedAt: number,
  ) {
    this.exclusive = prepared?.exclusive ?? true;
  }

  static of<Ctx>(prepared: PreparedCall<Ctx>, submittedAt: number): CallRecord<Ctx> {
    const { callId, toolName, payload } = prepared.call;
    return new CallRecord(callId, toolName, payload.kind, prepared, submittedAt);
  }

  /** Resolves with the outcome once settled. */
  get outcome(): Promise<ToolCallOutcome> {
    this.outcomePromise ??= this.handedOut
      ? Promise.resolve(this.result as ToolCallOutcome)
      : new Promise((resolve) => (this.resolveOutcome = resolve));
    return this.outcomePromise;
  }

  get settled(): boolean {
    return this.result !== undefined;
  }

  /** When its handler started; its deadline counts from here. */
  get startedAt(): number | undefined {
    return this.prepared?.startedAt;
  }

  /** How long its handler ran, as dispatch measured it. */
  get handlerMs(): number {
    return this.prepared?.handlerMs ?? 0;
  }

  /**
   * First settlement wins; later ones (a handler finishing after abort) return undefined. `end`
   * is the moment it finished; `timed` the dispatch whose gate and handler times count (none
   * when the runtime answered the call itself: abort, deadline, an item that is no call).
   */
  settle(
    item: ResponseInputItem,
    success: boolean,
    aborted: boolean,
    end: number,
    timed?: PreparedCall<Ctx>,
  ): ToolCallOutcome | undefined {
    if (this.result) return undefined;
    const startedAt = this.startedAt;
    const outcome: ToolCallOutcome = {
      callId: this.callId,
      toolName: this.toolName,
      item,
      success,
      aborted,
      timing: {
        queuedMs: (startedAt ?? end) - this.submittedAt,
        // Everything from submit to the lock request is synchronous: submit time is request time.
        lockWaitMs: (this.lockGrantedAt ?? end) - this.submittedAt,
        gateWaitMs: timed?.gateWaitMs ?? 0,
        handlerMs: timed?.handlerMs ?? 0,
        totalMs: end - this.submittedAt,
      },
    };
    this.result = outcome;
    return outcome;
  }

  /** The settled outcome may be read now: `outcome` resolves. */
  handOut(): void {
    this.handedOut = true;
    if (this.result) this.resolveOutcome?.(this.result);
  }
}
