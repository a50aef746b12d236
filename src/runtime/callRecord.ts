import type { PayloadKind, ResponseInputItem, ToolCall } from "../protocol/index.js";
import type { ToolInvocation } from "../registry/index.js";
import type { DispatchOptions, DispatchResult } from "../router/index.js";
import { emitEvent, type Timing, type TurnContext } from "../turn/index.js";
import { now } from "../util/index.js";

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
 * One accepted call, from submit until its outcome is settled and its lock slot released.
 * It is also the call's dispatch options (one object per call, not two, on the hot path): its
 * abort signal is created only when something reads it, because an `AbortSignal` costs
 * microseconds and most handlers never look.
 */
export class CallRecord<Ctx> implements DispatchOptions<Ctx> {
  readonly outcome: Promise<ToolCallOutcome>;
  /** The settled outcome, readable without awaiting. */
  result: ToolCallOutcome | undefined;
  lockGrantedAt: number | undefined;
  /** Set by dispatch when the handler starts; what `abortedOutput` is given. */
  invocation: ToolInvocation<Ctx> | undefined;
  /** When the handler started; its deadline counts from here. */
  startedAt: number | undefined;
  /** The lock slot while held: released once, when the handler settles or as leaked. */
  release: (() => void) | undefined;
  /** Counted by the deadline timer (`LIVE`), or past its deadline (`EXPIRED`); one field, small records. */
  deadline: DeadlineState = DeadlineState.None;
  private dispatchTiming: DispatchResult["timing"] | undefined;
  /** Set once the call is aborted (runtime abort, fatal error, or its own signal). */
  private abortReason: unknown;
  private controller: AbortController | undefined;
  private resolve!: (o: ToolCallOutcome) => void;

  constructor(
    readonly callId: string,
    readonly toolName: string,
    readonly payloadKind: PayloadKind,
    /** Undefined for an item that could not become a call (it is answered with its error). */
    readonly call: ToolCall | undefined,
    readonly submittedAt: number,
    readonly turn: TurnContext,
    readonly context: Ctx,
    private readonly owner: { abortTurnFrom(record: CallRecord<Ctx>, text: string): void },
  ) {
    this.outcome = new Promise((resolve) => (this.resolve = resolve));
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

  abortSignal(reason: unknown): void {
    if (this.abortReason !== undefined) return;
    this.abortReason = reason;
    this.controller?.abort(reason);
  }

  abortTurn(text: string): void {
    this.owner.abortTurnFrom(this, text);
  }

  onStart(invocation: ToolInvocation<Ctx>, startedAt: number): void {
    this.invocation = invocation;
    this.startedAt = startedAt;
    emitEvent(this.turn, {
      type: "tool_call_begin",
      callId: this.callId,
      toolName: this.toolName,
      payloadKind: this.payloadKind,
    });
  }

  /** First settlement wins; later ones (a handler finishing after abort) return undefined. */
  settle(
    item: ResponseInputItem,
    success: boolean,
    aborted: boolean,
    timing?: DispatchResult["timing"],
  ): ToolCallOutcome | undefined {
    if (this.result) return undefined;
    if (timing) this.dispatchTiming = timing;
    const end = now();
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
        gateWaitMs: this.dispatchTiming?.gateWaitMs ?? 0,
        handlerMs: this.dispatchTiming?.handlerMs ?? 0,
        totalMs: end - this.submittedAt,
      },
    };
    this.result = outcome;
    this.resolve(outcome);
    return outcome;
  }
}
