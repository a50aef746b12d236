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
import { ToolCallFailure, type DispatchResult, type ToolRouter } from "../router/index.js";
import {
  approvalBroker,
  dynamicCallBroker,
  emitEvent,
  truncateBody,
  userInputBroker,
  type DynamicToolResponse,
  type TurnContext,
  type UserInputResponse,
} from "../turn/index.js";
import { errorText, isRecord, now } from "../util/index.js";
import { CallDeadlines } from "./callDeadlines.js";
import { CallRecord, type CallOwner, type ToolCallOutcome } from "./callRecord.js";
import { FatalToolCallError } from "./errors.js";
import { GRANTED, SharedExclusiveLock } from "./lock.js";
import { RunningCalls } from "./runningCalls.js";
import { CallTracing } from "./tracing.js";

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
  /**
   * Hears each accepted call's outcome as it settles (finishing order, not call order), for
   * streaming outputs before `drain`. Called synchronously; what it throws is logged.
   */
  onOutcome?: (outcome: ToolCallOutcome) => void;
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
  private readonly lock: SharedExclusiveLock<CallRecord<Ctx>>;
  private readonly context: Ctx;
  private readonly acceptedCallIds = new Set<string>();
  /** Calls whose handler may still run, queued ones included: abort fans out to them from one place. */
  private readonly running = new RunningCalls<CallRecord<Ctx>>();
  private readonly pending: CallRecord<Ctx>[] = [];
  /** Calls in `pending` not settled yet: the waiting drain is answered once, when none is left. */
  private unsettled = 0;
  /** The waiting drain: its promise and how to settle it (fields, not a waiter object per drain). */
  private draining: Promise<ToolCallOutcome[]> | undefined;
  private resolveDrain: ((outcomes: ToolCallOutcome[]) => void) | undefined;
  private rejectDrain: ((err: unknown) => void) | undefined;
  private abortReason: string | undefined;
  private fatal: { callId: string; message: string; reported: boolean } | undefined;
  private readonly deadlines: CallDeadlines<Ctx>;
  private readonly onOutcome: ((outcome: ToolCallOutcome) => void) | undefined;
  /** What a call reports to its runtime: its dispatch's result, or a person's "abort". */
  private readonly callOwner: CallOwner<Ctx> = {
    abortTurnFrom: (record, text) => {
      this.answer(record, text, false);
      this.abort(texts.abortedByUser);
    },
    dispatched: (record, result) => {
      try {
        this.finish(record, result.item, result.success, false, result.timing, this.endOf(record, result));
      } catch (err) {
        this.finishWithError(record, err);
      }
      this.end(record);
    },
    dispatchFailed: (record, err) => {
      this.finishWithError(record, err);
      this.end(record);
    },
  };

  /** Spans per call, when an OpenTelemetry tracer provider is registered (checked here, once). */
  private readonly tracing: CallTracing | undefined;
  private readonly turn: TurnContext;

  constructor(
    private readonly router: ToolRouter<Ctx>,
    turn: TurnContext,
    opts: ToolCallRuntimeOptions<Ctx> = {},
  ) {
    this.tracing = CallTracing.create();
    const tracing = this.tracing;
    const listener = turn.onEvent;
    // Approval decisions reach the spans through the events; with no listener there are none
    // (and adding one would change who answers approvals).
    this.turn =
      tracing && listener
        ? {
            ...turn,
            onEvent: (event) => {
              tracing.observe(event);
              listener(event);
            },
          }
        : turn;
    const max = opts.maxConcurrency ?? 16;
    if (!Number.isInteger(max) || max < 1 || max > 256) {
      throw new RangeError(`maxConcurrency must be an integer in 1..256, got ${String(max)}`);
    }
    // A queued call's turn: the lock calls back, and dispatch starts right there (no promise per waiter).
    this.lock = new SharedExclusiveLock<CallRecord<Ctx>>(max, (record) => {
      this.begin(record);
    });
    this.context = opts.context as Ctx;
    this.onOutcome = opts.onOutcome;
    this.deadlines = new CallDeadlines<Ctx>(
      {
        turn: this.turn,
        // A copy: expiring a call runs listeners, which may abort and so change the list.
        running: () => [...this.running],
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
      this.track(this.start(built, submittedAt));
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
    this.tracing?.begin(callId, toolName, built.payloadKind, true);
    this.track(record);
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

  drain(): Promise<ResponseInputItem[]> {
    return this.drainOutcomes().then((outcomes) => outcomes.map((o) => o.item));
  }

  /** Outcomes of every call submitted since the last drain, in submission order. */
  drainOutcomes(): Promise<ToolCallOutcome[]> {
    // A drain called while another waits drains after it: what was submitted since.
    if (this.draining) {
      const next = (): Promise<ToolCallOutcome[]> => this.drainOutcomes();
      return this.draining.then(next, next);
    }
    // One wake per drain, not an await per call: the last pending call to settle answers it from
    // its own callback (calls submitted meanwhile are waited for too). A fatal error rejects.
    const drained = new Promise<ToolCallOutcome[]>((resolve, reject) => {
      if (this.unsettled === 0) {
        resolve(this.takeOutcomes());
        return;
      }
      this.resolveDrain = resolve;
      this.rejectDrain = reject;
    });
    if (this.resolveDrain) this.draining = drained;
    return drained;
  }

  /** Every pending call has settled: the waiting drain, if any, takes their outcomes. */
  private answerDrain(): void {
    const resolve = this.resolveDrain;
    const reject = this.rejectDrain;
    if (!resolve || !reject) return;
    this.draining = this.resolveDrain = this.rejectDrain = undefined;
    try {
      resolve(this.takeOutcomes());
    } catch (err) {
      reject(err);
    }
  }

  private takeOutcomes(): ToolCallOutcome[] {
    // `splice` rather than a fresh `[]` per drain: V8 may pretenure an array literal that long
    // batches kept alive, and then every dead pending array, tenured, keeps its calls' objects
    // alive through young collections (sequential submit + drain ran 2× slower in such a process).
    const outcomes = this.pending.splice(0).map(settledOutcome);
    this.reportFatal(outcomes);
    return outcomes;
  }

  /** Answers every pending call with its aborted output now; queued calls never start. */
  abort(reason?: string): void {
    if (this.aborted) return;
    this.abortReason = reason ?? texts.abortedByUser;
    for (const record of [...this.running]) this.abortCall(record, this.abortReason);
  }

  /**
   * Aborts one call, as `abort()` does every call: it is answered at once with its aborted
   * output and its processes are killed; the turn goes on. False when no call with that id
   * is still running or queued.
   */
  cancel(callId: string): boolean {
    for (const record of this.running) {
      if (record.callId !== callId || record.settled) continue;
      this.abortCall(record, texts.abortedByUser);
      return true;
    }
    return false;
  }

  /** Delivers the embedder's answer to a waiting dynamic tool call; false if none is waiting. */
  respondToDynamicToolCall(callId: string, response: DynamicToolResponse): boolean {
    return dynamicCallBroker(this.turn).respond(callId, response);
  }

  /** Answers a call waiting for approval (after an `approval_request` event); false if none is waiting. */
  respondToApproval(callId: string, decision: ApprovalDecision): boolean {
    return approvalBroker(this.turn).respond(callId, decision);
  }

  /**
   * Delivers a person's answers to a waiting `request_user_input` call (after a
   * `user_input_request` event), `null` when they dismissed the questions; false if none is
   * waiting. Throws a TypeError naming the problem when `response` is not a UserInputResponse.
   */
  respondToUserInput(callId: string, response: UserInputResponse | null): boolean {
    if (response !== null) checkUserInputResponse(response);
    return userInputBroker(this.turn).respond(callId, response);
  }

  private reject(item: ResponseItem | UnknownItem, callId: string, toolName: string, reason: string): SubmitResult {
    // A hostile item may carry any `type`: the event names it only when it is text.
    const name = toolName || (typeof item.type === "string" ? item.type : "");
    this.turn.logger.warn({ callId, toolName: name, reason }, "tool call rejected");
    emitEvent(this.turn, { type: "tool_call_rejected", callId, toolName: name, reason });
    return callId === "" ? { accepted: false, reason } : { accepted: false, callId, reason };
  }

  /** Adds an accepted call to the next drain (counted until it settles). */
  private track(record: CallRecord<Ctx>): void {
    this.pending.push(record);
    if (record.settled) return;
    record.awaitedByDrain = true;
    this.unsettled++;
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
      this.tracing?.begin(call.callId, call.toolName, call.payload.kind, true);
      record.abortSignal(this.abortReason ?? (callSignal ? abortReason(callSignal) : texts.abortedByUser));
      this.settleAborted(record);
      return record;
    }
    try {
      // Resolved once: the lock mode, dispatch and the deadline all read this entry.
      record.tool = this.router.toolFor(call);
      record.exclusive = !this.router.callSupportsParallel(call, record.tool);
    } catch (err) {
      this.turn.logger.warn(
        { err: errorText(err), callId: call.callId },
        "supportsParallel threw; running the call exclusively",
      );
    }
    this.tracing?.begin(call.callId, call.toolName, call.payload.kind, record.exclusive);
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

  /**
   * The call holds its slot: dispatch it; the record hears the result (`callOwner`) and the slot
   * is released there. Never throws (the lock calls it), and whatever escapes dispatch still
   * answers the call (invariant 9).
   */
  private begin(record: CallRecord<Ctx>): void {
    record.ticket = GRANTED;
    record.holdsSlot = true;
    // Aborted while queued, or the runtime was aborted while the lock granted it: it never starts.
    if (record.settled || record.aborted || this.aborted) {
      this.end(record);
      return;
    }
    // One clock read per start: the grant (the submit, when granted at once) is also the
    // handler's start when nothing waits before it.
    const grantedAt = (record.lockGrantedAt ??= now());
    // Before dispatch: an unknown tool or invalid arguments are answered (and end) within it.
    this.deadlines.start(record, grantedAt);
    this.router.dispatchTo(record.call as ToolCall, record, record, record.tool, grantedAt);
  }

  /**
   * When the call ended: the handler's end as dispatch measured it (after bounding the output),
   * unless PostToolUse hooks ran after that or the handler never started.
   */
  private endOf(record: CallRecord<Ctx>, result: DispatchResult): number {
    return record.startedAt !== undefined && this.turn.hooks === undefined
      ? record.startedAt + result.timing.handlerMs
      : now();
  }

  /**
   * The handler has settled (aborted or not): its slot goes back, unless it was already released
   * as leaked after its deadline.
   */
  private end(record: CallRecord<Ctx>): void {
    // Only an abort reads it (for `abortedOutput`), and the call is answered now: while the turn
    // lasts, a finished call holds its outcome and no more.
    record.invocation = undefined;
    this.running.delete(record);
    this.deadlines.end(record);
    this.releaseSlot(record);
  }

  private releaseSlot(record: CallRecord<Ctx>): void {
    if (!record.holdsSlot) return;
    record.holdsSlot = false;
    this.lock.release(record.exclusive);
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

  /**
   * Answers the call with its aborted output, then lets its handler see the signal. A call still
   * queued leaves the lock's queue now: it will never start.
   */
  private abortCall(record: CallRecord<Ctx>, reason: string): void {
    this.settleAborted(record);
    record.abortSignal(reason);
    if (record.ticket !== GRANTED && this.lock.cancel(record.ticket)) {
      record.ticket = GRANTED;
      this.running.delete(record);
    }
  }

  private settleAborted(record: CallRecord<Ctx>): void {
    if (record.settled) return;
    const elapsedMs = now() - record.submittedAt;
    const fatal = this.fatal;
    let text: string;
    if (fatal && fatal.callId !== record.callId) text = texts.abortedTurnEnded(elapsedMs, fatal.message);
    else if (record.call) text = this.router.abortedText(record.call, record.invocation, elapsedMs, record.tool);
    else text = texts.abortedAfter(elapsedMs);
    this.answer(record, text, true);
  }

  /** Settles the call with a text answer, bounded like every other output. */
  private answer(record: CallRecord<Ctx>, text: string, aborted: boolean): void {
    const body = truncateBody(text, this.turn.truncationPolicy);
    this.finish(record, responseItemFor(record.callId, record.payloadKind, body, false), false, aborted);
  }

  private finish(
    record: CallRecord<Ctx>,
    item: ResponseInputItem,
    success: boolean,
    aborted: boolean,
    timing?: DispatchResult["timing"],
    end?: number,
  ): void {
    const outcome = record.settle(item, success, aborted, timing, end);
    if (!outcome) return;
    if (record.awaitedByDrain && --this.unsettled === 0) this.answerDrain();
    this.tracing?.end(outcome);
    if (this.onOutcome) this.tellOutcome(this.onOutcome, outcome);
    const { callId, toolName } = outcome;
    // No object per call for a level that is off (serve-mcp's logger is at error).
    if (this.turn.logger.isLevelEnabled("debug")) {
      this.turn.logger.debug({ callId, toolName, success, aborted, timing: outcome.timing }, "tool call finished");
    }
    // The event object is built only when someone listens.
    if (this.turn.onEvent)
      emitEvent(this.turn, { type: "tool_call_end", callId, toolName, success, aborted, timing: outcome.timing });
  }

  private tellOutcome(listener: (outcome: ToolCallOutcome) => void, outcome: ToolCallOutcome): void {
    try {
      listener(outcome);
    } catch (err) {
      this.turn.logger.warn({ err: errorText(err), callId: outcome.callId }, "onOutcome listener threw");
    }
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

/** Drain reads outcomes once every call in its batch has settled. */
function settledOutcome<Ctx>(record: CallRecord<Ctx>): ToolCallOutcome {
  return record.result as ToolCallOutcome;
}

function messageOf(err: FunctionCallError): string {
  return errorText(err) ?? "invalid tool call";
}

function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (typeof reason === "string") return reason;
  return reason instanceof Error ? (errorText(reason) ?? texts.abortedByUser) : texts.abortedByUser;
}

function checkUserInputResponse(response: unknown): void {
  const answers = isRecord(response) ? response.answers : undefined;
  if (!isRecord(answers))
    throw new TypeError("respondToUserInput: response.answers must be an object keyed by question id");
  for (const [id, answer] of Object.entries(answers)) {
    const list = isRecord(answer) ? answer.answers : undefined;
    if (!Array.isArray(list) || !list.every((a) => typeof a === "string")) {
      throw new TypeError(`respondToUserInput: answers[${JSON.stringify(id)}].answers must be an array of strings`);
    }
  }
}
