import type { PayloadKind, ResponseInputItem, ToolCall } from "../protocol/index.js";
import type { RegisteredTool, ToolInvocation } from "../registry/index.js";
import type { DispatchOptions, DispatchResult, DispatchSink } from "../router/index.js";
import { emitEvent, type Timing, type TurnContext } from "../turn/index.js";
import { errorText, now } from "../util/index.js";
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

/** What a call reports to its runtime (one object per runtime, so no closure per call). */
export interface CallOwner<Ctx> {
  /** A person answered "abort": answer the call with `text` and end the turn. */
  abortTurnFrom(record: CallRecord<Ctx>, text: string): void;
  /** Its dispatch answered (`DispatchSink`); never throws. */
  dispatched(record: CallRecord<Ctx>, result: DispatchResult): void;
  /** Its dispatch threw (`DispatchSink`); never throws. */
  dispatchFailed(record: CallRecord<Ctx>, err: unknown): void;
}

/**
 * One accepted call, from submit until its outcome is settled and its lock slot released.
 * It is also the call's dispatch options, where its dispatch reports, and its lock request: one
 * object per call, not four, on the hot path. Its abort signal and its outcome promise are
 * created only when something reads them: an `AbortSignal` costs microseconds and most handlers
 * never look, and only `handleToolCall` awaits an outcome (drain reads `result`).
 */
export class CallRecord<Ctx> implements DispatchOptions<Ctx>, DispatchSink, LockRequest, RunningLinks<CallRecord<Ctx>> {
  /** The settled outcome, readable without awaiting. */
  result: ToolCallOutcome | undefined;
  /** Runs alone (the lock's exclusive mode); set before the lock is requested. */
  exclusive = true;
  /** The registered tool, resolved once at submit and handed to dispatch. */
  tool: RegisteredTool<Ctx> | undefined;
  /** Its place in the lock's queue while waiting (GRANTED once it holds a slot, or never queued). */
  ticket = GRANTED;
  /** Holds its lock slot: released once, when the handler settles or as leaked. */
  holdsSlot = false;
  /** Counted among the runtime's unsettled drainable calls until it settles. */
  awaitedByDrain = false;
  /** Its neighbours among the runtime's running calls. */
  prevRunning: CallRecord<Ctx> | undefined;
  nextRunning: CallRecord<Ctx> | undefined;
  lockGrantedAt: number | undefined;
  /** Set by dispatch when the handler starts, dropped when it settles; what `abortedOutput` is given. */
  invocation: ToolInvocation<Ctx> | undefined;
  /** When the handler started; its deadline counts from here. */
  startedAt: number | undefined;
  /** Counted by the deadline timer (`LIVE`), or past its deadline (`EXPIRED`); one field, small records. */
  deadline: DeadlineState = DeadlineState.None;
  /** Set once the call is aborted (runtime abort, fatal error, or its own signal). */
  private abortReason: unknown;
  private controller: AbortController | undefined;
  /** `onAbort` listeners: most calls have none, an MCP call one. */
  private abortListeners: Array<(reason: unknown) => void> | undefined;
  private outcomePromise: Promise<ToolCallOutcome> | undefined;
  private resolveOutcome: ((o: ToolCallOutcome) => void) | undefined;

  constructor(
    readonly callId: string,
    readonly toolName: string,
    readonly payloadKind: PayloadKind,
    /** Undefined for an item that could not become a call (it is answered with its error). */
    readonly call: ToolCall | undefined,
    readonly submittedAt: number,
    readonly turn: TurnContext,
    readonly context: Ctx,
    private readonly owner: CallOwner<Ctx>,
  ) {}

  /** Resolves with the outcome once settled. */
  get outcome(): Promise<ToolCallOutcome> {
    this.outcomePromise ??= this.result
      ? Promise.resolve(this.result)
      : new Promise((resolve) => (this.resolveOutcome = resolve));
    return this.outcomePromise;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortReason !== undefined) this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  }

  get settled(): boolean {
    return this.result !== undefined;
  }

  get aborted(): boolean {
    return this.abortReason !== undefined;
  }

  /** `ToolInvocation.onAbort`: no `AbortSignal` is made for it. */
  onAbort(listener: (reason: unknown) => void): void {
    if (this.abortReason !== undefined) listener(this.abortReason);
    else (this.abortListeners ??= []).push(listener);
  }

  abortSignal(reason: unknown): void {
    if (this.abortReason !== undefined) return;
    this.abortReason = reason;
    this.controller?.abort(reason);
    const listeners = this.abortListeners;
    this.abortListeners = undefined;
    for (const listener of listeners ?? []) {
      try {
        listener(reason);
      } catch (err) {
        // Like an abort event listener's: the abort goes on for every other call.
        this.turn.logger.warn({ err: errorText(err), callId: this.callId }, "abort listener threw");
      }
    }
  }

  abortTurn(text: string): void {
    this.owner.abortTurnFrom(this, text);
  }

  dispatched(result: DispatchResult): void {
    this.owner.dispatched(this, result);
  }

  dispatchFailed(err: unknown): void {
    this.owner.dispatchFailed(this, err);
  }

  onStart(invocation: ToolInvocation<Ctx>, startedAt: number): void {
    this.invocation = invocation;
    this.startedAt = startedAt;
    // The event object is built only when someone listens.
    if (this.turn.onEvent)
      emitEvent(this.turn, {
        type: "tool_call_begin",
        callId: this.callId,
        toolName: this.toolName,
        payloadKind: this.payloadKind,
      });
  }

  /**
   * First settlement wins; later ones (a handler finishing after abort) return undefined. `end`
   * is the moment it finished, when the caller already read the clock.
   */
  settle(
    item: ResponseInputItem,
    success: boolean,
    aborted: boolean,
    timing?: DispatchResult["timing"],
    end = now(),
  ): ToolCallOutcome | undefined {
    if (this.result) return undefined;
    const outcome: ToolCallOutcome = {
      callId: this.callId,
      toolName: this.toolName,
      item,
      success,
      aborted,
      timing: {
        queuedMs: (this.startedAt ?? end) - this.submittedAt,
        // Everything from submit to the lock request is synchronous: submit time is request time.
        lockWaitMs: (this.lockGrantedAt ?? end) - this.submittedAt,
        gateWaitMs: timing?.gateWaitMs ?? 0,
        handlerMs: timing?.handlerMs ?? 0,
        totalMs: end - this.submittedAt,
      },
    };
    this.result = outcome;
    this.resolveOutcome?.(outcome);
    return outcome;
  }
}
