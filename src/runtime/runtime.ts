import {
  FunctionCallError,
  type ApprovalDecision,
  responseItemFor,
  texts,
  type ResponseInputItem,
  type ResponseItem,
  type ToolCall,
  type UnknownItem,
} from "../protocol/index.js";
import { ToolCallFailure, type ToolRouter } from "../router/index.js";
import {
  approvalBroker,
  dynamicCallBroker,
  emitEvent,
  truncateBody,
  type DynamicToolResponse,
  type TurnContext,
} from "../turn/index.js";
import { errorText, now } from "../util/index.js";
import { CallDeadlines } from "./callDeadlines.js";
import { CallRecord, type ToolCallOutcome } from "./callRecord.js";
import { FatalToolCallError } from "./errors.js";
import { SharedExclusiveLock } from "./lock.js";

export type { ToolCallOutcome };

export interface ToolCallRuntimeOptions<Ctx> {
  /** Shared calls running at once; an integer in 1..256, default 16. */
  maxConcurrency?: number;
  /** Every call's deadline unless its spec sets one, in ms; default 600_000. */
  toolTimeoutMs?: number;
  /** How long a handler that ignores its deadline keeps its lock slot, in ms; default 5_000. */
  leakGraceMs?: number;
  /** Aborting it aborts the runtime. */
  signal?: AbortSignal;
  context?: Ctx;
}

/**
 * What `submit` did with an item. Not a tool call: `accepted: false` and no reason. Rejected
 * (no call id, duplicate call id): `accepted: false` and the reason; it gets no output.
 * Accepted: the call id; `reason` is set when the item could not become a call and is answered
 * with that error.
 */
export interface SubmitResult {
  accepted: boolean;
  callId?: string;
  reason?: string;
}

const NOT_A_CALL: SubmitResult = Object.freeze({ accepted: false });

/**
 * Runs a turn's tool calls (Codex `ToolCallRuntime`): each starts as soon as it is submitted,
 * shared calls overlap up to `maxConcurrency`, exclusive calls run alone, conflicting calls keep
 * submission order, and `drain()` answers every accepted call exactly once, in submission order.
 * The runtime is lock + dispatch + abort; it knows no tool by name.
 */
export class ToolCallRuntime<Ctx = unknown> {
  private readonly lock: SharedExclusiveLock;
  private readonly context: Ctx;
  private readonly acceptedCallIds = new Set<string>();
  /** Calls whose handler may still run: abort fans out to them from one place. */
  private readonly running = new Set<CallRecord<Ctx>>();
  private pending: CallRecord<Ctx>[] = [];
  private abortReason: string | undefined;
  private fatal: { callId: string; message: string; reported: boolean } | undefined;
  private readonly deadlines: CallDeadlines<Ctx>;
  /** What a call may ask of its runtime: a person answered "abort", so answer it and end the turn. */
  private readonly callOwner = {
    abortTurnFrom: (record: CallRecord<Ctx>, text: string): void => {
      this.answer(record, text, false);
      this.abort(texts.abortedByUser);
    },
  };

  constructor(
    private readonly router: ToolRouter<Ctx>,
    private readonly turn: TurnContext,
    opts: ToolCallRuntimeOptions<Ctx> = {},
  ) {
    const max = opts.maxConcurrency ?? 16;
    if (!Number.isInteger(max) || max < 1 || max > 256) {
      throw new RangeError(`maxConcurrency must be an integer in 1..256, got ${String(max)}`);
    }
    this.lock = new SharedExclusiveLock(max);
    this.context = opts.context as Ctx;
    this.deadlines = new CallDeadlines<Ctx>(
      {
        turn,
        running: () => this.running,
        specTimeoutMs: (toolName) => router.toolTimeoutMs(toolName),
        answer: (record, text) => {
          this.answer(record, text, false);
        },
        releaseSlot: (record) => {
          this.releaseSlot(record);
        },
      },
      positive("toolTimeoutMs", opts.toolTimeoutMs, 600_000),
      positive("leakGraceMs", opts.leakGraceMs, 5_000),
      router.shortestToolTimeoutMs(),
    );
    const external = opts.signal;
    if (external) {
      if (external.aborted) this.abort(abortReason(external));
      else
        external.addEventListener(
          "abort",
          () => {
            this.abort(abortReason(external));
          },
          { once: true },
        );
    }
  }

  get aborted(): boolean {
    return this.abortReason !== undefined;
  }

  /** Accepts a model output item and starts its call at once. Never throws. */
  submit(item: ResponseItem | UnknownItem): SubmitResult {
    try {
      return this.accept(item, now());
    } catch (err) {
      // Only a hostile item (a proxy whose traps throw) gets here: nothing was accepted.
      const reason = `unreadable item: ${errorText(err) ?? "unknown error"}`;
      this.turn.logger.warn({ reason }, "tool call rejected");
      emitEvent(this.turn, { type: "tool_call_rejected", callId: "", toolName: "", reason });
      return { accepted: false, reason };
    }
  }

  private accept(item: ResponseItem | UnknownItem, submittedAt: number): SubmitResult {
    const built = this.router.tryBuildToolCall(item);
    if (built === null) return NOT_A_CALL;
    const { callId, toolName } = built;
    if (callId === undefined) return this.reject(item, "", toolName, messageOf((built as ToolCallFailure).error));
    // One hash operation: `add` grows the set unless the id was already accepted.
    const known = this.acceptedCallIds.size;
    if (this.acceptedCallIds.add(callId).size === known) {
      return this.reject(item, callId, toolName, texts.duplicateCallId(callId));
    }

    if (!(built instanceof ToolCallFailure)) {
      this.pending.push(this.start(built, submittedAt));
      return { accepted: true, callId };
    }
    // A known call id, but the item could not become a call: answer it with the error (or, once
    // the turn is aborted, with the aborted output like every other late submit).
    const record = new CallRecord<Ctx>(
      callId,
      toolName,
      built.payloadKind,
      undefined,
      submittedAt,
      this.turn,
      this.context,
      this.callOwner,
    );
    this.pending.push(record);
    const reason = messageOf(built.error);
    if (this.aborted) this.settleAborted(record);
    else this.answer(record, reason, false);
    return { accepted: true, callId, reason };
  }

  /** Runs one call outside the submit/drain bookkeeping; rejects only with `FatalToolCallError`. */
  async handleToolCall(call: ToolCall, signal?: AbortSignal): Promise<ToolCallOutcome> {
    const outcome = await this.start(call, now(), signal).outcome;
    this.reportFatal([outcome]);
    return outcome;
  }

  async drain(): Promise<ResponseInputItem[]> {
    return (await this.drainOutcomes()).map((o) => o.item);
  }

  /** Outcomes of every call submitted since the last drain, in submission order. */
  async drainOutcomes(): Promise<ToolCallOutcome[]> {
    const outcomes: ToolCallOutcome[] = [];
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      // Settled calls are read directly: an await per call costs more than the call itself.
      for (const record of batch) outcomes.push(record.result ?? (await record.outcome));
    }
    this.reportFatal(outcomes);
    return outcomes;
  }

  /** Answers every pending call with its aborted output now; queued calls never start. */
  abort(reason?: string): void {
    if (this.aborted) return;
    this.abortReason = reason ?? texts.abortedByUser;
    for (const record of [...this.running]) this.abortCall(record, this.abortReason);
  }

  /** Delivers the embedder's answer to a waiting dynamic tool call; false if none is waiting. */
  respondToDynamicToolCall(callId: string, response: DynamicToolResponse): boolean {
    return dynamicCallBroker(this.turn).respond(callId, response);
  }

  /** Answers a call waiting for approval (after an `approval_request` event); false if none is waiting. */
  respondToApproval(callId: string, decision: ApprovalDecision): boolean {
    return approvalBroker(this.turn).respond(callId, decision);
  }

  private reject(item: ResponseItem | UnknownItem, callId: string, toolName: string, reason: string): SubmitResult {
    // A hostile item may carry any `type`: the event names it only when it is text.
    const name = toolName || (typeof item.type === "string" ? item.type : "");
    this.turn.logger.warn({ callId, toolName: name, reason }, "tool call rejected");
    emitEvent(this.turn, { type: "tool_call_rejected", callId, toolName: name, reason });
    return callId === "" ? { accepted: false, reason } : { accepted: false, callId, reason };
  }

  private start(call: ToolCall, submittedAt: number, callSignal?: AbortSignal): CallRecord<Ctx> {
    const record = new CallRecord<Ctx>(
      call.callId,
      call.toolName,
      call.payload.kind,
      call,
      submittedAt,
      this.turn,
      this.context,
      this.callOwner,
    );
    if (this.aborted || callSignal?.aborted) {
      record.abortSignal(this.abortReason ?? (callSignal ? abortReason(callSignal) : texts.abortedByUser));
      this.settleAborted(record);
      return record;
    }
    let parallel = false;
    try {
      parallel = this.router.callSupportsParallel(call);
    } catch (err) {
      this.turn.logger.warn(
        { err: errorText(err), callId: call.callId },
        "supportsParallel threw; running the call exclusively",
      );
    }
    this.running.add(record);
    callSignal?.addEventListener(
      "abort",
      () => {
        this.abortCall(record, abortReason(callSignal));
      },
      { once: true },
    );
    void this.run(record, call, parallel);
    return record;
  }

  /**
   * Requests the lock synchronously (so queue order is call order), then dispatches holding it.
   * Never rejects: whatever escapes dispatch still answers the call (invariant 9).
   */
  private async run(record: CallRecord<Ctx>, call: ToolCall, parallel: boolean): Promise<void> {
    record.release = this.lock.tryAcquire(!parallel) ?? undefined;
    try {
      if (record.release) {
        record.lockGrantedAt = record.submittedAt;
      } else {
        record.release = await this.lock.acquire(!parallel);
        record.lockGrantedAt = now();
      }
      // Aborted while queued: it never starts, and its turn in the queue ends here.
      if (record.settled || record.aborted) return;
      this.deadlines.start(record);
      const result = await this.router.dispatch(call, record);
      this.finish(record, result.item, result.success, false, result.timing);
    } catch (err) {
      this.finishWithError(record, err);
    } finally {
      // The slot is released only when the handler has settled, aborted or not (unless it
      // was released as leaked after its deadline).
      this.running.delete(record);
      this.deadlines.end(record);
      this.releaseSlot(record);
    }
  }

  private releaseSlot(record: CallRecord<Ctx>): void {
    const release = record.release;
    record.release = undefined;
    release?.();
  }

  /** A fatal error ends the turn; anything else answers `tool {name} failed: ...`. Never throws. */
  private finishWithError(record: CallRecord<Ctx>, err: unknown): void {
    if (record.settled) return;
    const message = errorText(err);
    if (FunctionCallError.isFatal(err) && !this.aborted) {
      const fatalMessage = message ?? "Fatal error";
      this.fatal = { callId: record.callId, message: fatalMessage, reported: false };
      this.answer(record, fatalMessage, false);
      this.abort(fatalMessage);
      return;
    }
    this.turn.logger.error({ err: message, callId: record.callId }, "tool call failed outside its handler");
    this.answer(record, texts.toolFailed(record.toolName, message), false);
  }

  /** Answers the call with its aborted output, then lets its handler see the signal. */
  private abortCall(record: CallRecord<Ctx>, reason: string): void {
    this.settleAborted(record);
    record.abortSignal(reason);
  }

  private settleAborted(record: CallRecord<Ctx>): void {
    if (record.settled) return;
    const elapsedMs = now() - record.submittedAt;
    const fatal = this.fatal;
    let text: string;
    if (fatal && fatal.callId !== record.callId) text = texts.abortedTurnEnded(elapsedMs, fatal.message);
    else if (record.call) text = this.router.abortedText(record.call, record.invocation, elapsedMs);
    else text = texts.abortedAfter(elapsedMs);
    this.answer(record, text, true);
  }

  /** Settles the call with a text answer, bounded like every other output. */
  private answer(record: CallRecord<Ctx>, text: string, aborted: boolean): void {
    const body = truncateBody(text, this.turn.truncationPolicy);
    this.finish(record, responseItemFor(record.callId, record.payloadKind, body), false, aborted);
  }

  private finish(
    record: CallRecord<Ctx>,
    item: ResponseInputItem,
    success: boolean,
    aborted: boolean,
    timing?: { gateWaitMs: number; handlerMs: number },
  ): void {
    const outcome = record.settle(item, success, aborted, timing);
    if (!outcome) return;
    const { callId, toolName } = outcome;
    this.turn.logger.debug({ callId, toolName, success, aborted, timing: outcome.timing }, "tool call finished");
    emitEvent(this.turn, { type: "tool_call_end", callId, toolName, success, aborted, timing: outcome.timing });
  }

  /** Throws the turn's fatal error once, when the fatal call is among `outcomes`. */
  private reportFatal(outcomes: ToolCallOutcome[]): void {
    const fatal = this.fatal;
    if (!fatal || fatal.reported) return;
    const own = outcomes.find((o) => o.callId === fatal.callId && !o.aborted);
    if (!own) return;
    fatal.reported = true;
    const others = outcomes.filter((o) => o !== own).map((o) => o.item);
    throw new FatalToolCallError(fatal.callId, fatal.message, others, own.item);
  }
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0)
    throw new RangeError(`${name} must be a positive number, got ${String(value)}`);
  return value;
}

function messageOf(err: FunctionCallError): string {
  return errorText(err) ?? "invalid tool call";
}

function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (typeof reason === "string") return reason;
  return reason instanceof Error ? (errorText(reason) ?? texts.abortedByUser) : texts.abortedByUser;
}
