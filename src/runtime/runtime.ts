import type { ToolCall } from "../protocol/call.js";
import { FunctionCallError } from "../protocol/errors.js";
import type { ResponseInputItem, ResponseItem, UnknownItem } from "../protocol/items.js";
import type { TurnContext } from "../turn/context.js";
import { emitEvent, type Timing } from "../turn/events.js";
import { dynamicCallBroker, type DynamicToolResponse } from "../turn/dynamicCalls.js";
import type { ToolHandler, ToolInvocation } from "../registry/handler.js";
import { itemCallId } from "../router/buildToolCall.js";
import { failureItem } from "../router/outputs.js";
import type { DispatchOptions, ToolRouter } from "../router/router.js";
import { FatalToolCallError } from "./errors.js";
import { SharedExclusiveLock } from "./lock.js";

export interface ToolCallOutcome {
  callId: string;
  toolName: string;
  item: ResponseInputItem;
  success: boolean;
  aborted: boolean;
  timing: Timing;
}

export interface ToolCallRuntimeOptions<Ctx> {
  /** Shared calls running at once; an integer in 1..256, default 16. */
  maxConcurrency?: number;
  /** Aborting it aborts the runtime. */
  signal?: AbortSignal;
  context?: Ctx;
}

const SHELL_TOOLS = new Set(["shell", "shell_command", "local_shell"]);
const now = (): number => performance.now();
const seconds = (ms: number): string => (ms / 1000).toFixed(1);

/**
 * One accepted call, from submit until its outcome is settled and its lock slot released. It is
 * also the call's dispatch options: its abort signal is created only when something reads it,
 * because an `AbortSignal` costs microseconds and most handlers never look.
 */
class CallRecord<Ctx> implements DispatchOptions<Ctx> {
  readonly outcome: Promise<ToolCallOutcome>;
  settled = false;
  startedAt: number | undefined;
  lockGrantedAt: number | undefined;
  gateWaitMs = 0;
  handlerMs = 0;
  started: { invocation: ToolInvocation<Ctx>; handler: ToolHandler<Ctx> } | undefined;
  /** The settled outcome, readable without awaiting. */
  result: ToolCallOutcome | undefined;
  /** Set once the call is aborted (runtime abort, fatal error, or its own signal). */
  abortReason: unknown;
  private controller: AbortController | undefined;
  private resolve!: (o: ToolCallOutcome) => void;

  constructor(
    readonly call: ToolCall,
    readonly submittedAt: number,
    readonly turn: TurnContext,
    readonly context: Ctx,
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

  get aborted(): boolean {
    return this.abortReason !== undefined;
  }

  abortSignal(reason: unknown): void {
    if (this.abortReason !== undefined) return;
    this.abortReason = reason;
    this.controller?.abort(reason);
  }

  onStart(invocation: ToolInvocation<Ctx>, handler: ToolHandler<Ctx>, startedAt: number): void {
    this.started = { invocation, handler };
    this.startedAt = startedAt;
    const { callId, toolName, payload } = this.call;
    emitEvent(this.turn, { type: "tool_call_begin", callId, toolName, payloadKind: payload.kind });
  }

  /** First settlement wins; later ones (a handler finishing after abort) are ignored. */
  settle(item: ResponseInputItem, success: boolean, aborted: boolean): ToolCallOutcome | undefined {
    if (this.settled) return undefined;
    this.settled = true;
    const end = now();
    const outcome: ToolCallOutcome = {
      callId: this.call.callId,
      toolName: this.call.toolName,
      item,
      success,
      aborted,
      timing: {
        queuedMs: (this.startedAt ?? end) - this.submittedAt,
        // Everything from submit to the lock request is synchronous: submit time is request time.
        lockWaitMs: (this.lockGrantedAt ?? end) - this.submittedAt,
        gateWaitMs: this.gateWaitMs,
        handlerMs: this.handlerMs,
        totalMs: end - this.submittedAt,
      },
    };
    this.result = outcome;
    this.resolve(outcome);
    return outcome;
  }
}

/**
 * Runs a turn's tool calls: each starts as soon as it is submitted, shared calls overlap up to
 * `maxConcurrency`, exclusive calls run alone, conflicting calls keep submission order, and
 * `drain()` answers every accepted call exactly once, in submission order (Codex
 * `ToolCallRuntime`).
 */
export class ToolCallRuntime<Ctx = unknown> {
  private readonly lock: SharedExclusiveLock;
  private readonly context: Ctx;
  private readonly seen = new Set<string>();
  /** Calls whose handler may still run: abort fans out to them from one place. */
  private readonly live = new Set<CallRecord<Ctx>>();
  private pending: CallRecord<Ctx>[] = [];
  private abortReason: string | undefined;
  private fatal: { callId: string; message: string; reported: boolean } | undefined;

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
    const external = opts.signal;
    if (external) {
      if (external.aborted) this.abort(abortReason(external));
      else external.addEventListener("abort", () => this.abort(abortReason(external)), { once: true });
    }
  }

  get aborted(): boolean {
    return this.abortReason !== undefined;
  }

  /** Accepts a model output item and starts its call at once. Never throws. */
  submit(item: ResponseItem | UnknownItem): void {
    try {
      this.accept(item, now());
    } catch (err) {
      this.turn.logger.error({ err }, "submit failed unexpectedly");
    }
  }

  /** Runs one call outside the submit/drain bookkeeping; rejects only with `FatalToolCallError`. */
  async handleToolCall(call: ToolCall, signal?: AbortSignal): Promise<ToolCallOutcome> {
    const record = this.start(call, now(), signal);
    const outcome = await record.outcome;
    if (this.fatal?.callId === call.callId && !outcome.aborted && !this.fatal.reported) {
      this.fatal.reported = true;
      throw new FatalToolCallError(call.callId, this.fatal.message, []);
    }
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
    const fatal = this.fatal;
    if (fatal && !fatal.reported && outcomes.some((o) => o.callId === fatal.callId)) {
      fatal.reported = true;
      const others = outcomes.filter((o) => o.callId !== fatal.callId).map((o) => o.item);
      throw new FatalToolCallError(fatal.callId, fatal.message, others);
    }
    return outcomes;
  }

  /** Answers every pending call with its aborted output now; queued calls never start. */
  abort(reason?: string): void {
    if (this.aborted) return;
    this.abortReason = reason ?? "aborted by user";
    for (const record of [...this.live]) this.abortCall(record, this.abortReason);
  }

  /** Delivers the embedder's answer to a waiting dynamic tool call; false if none is waiting. */
  respondToDynamicToolCall(callId: string, response: DynamicToolResponse): boolean {
    return dynamicCallBroker(this.turn).respond(callId, response);
  }

  private accept(item: ResponseItem | UnknownItem, submittedAt: number): void {
    let call: ToolCall | null = null;
    let buildError: unknown;
    try {
      call = this.router.buildToolCall(item);
      if (call === null) return;
    } catch (err) {
      buildError = err;
    }
    const callId = call?.callId ?? itemCallId(item);
    if (callId === undefined) {
      return this.reject(item, "", errorText(buildError) ?? "tool call without a call id");
    }
    const known = this.seen.size;
    if (this.seen.add(callId).size === known) return this.reject(item, callId, `duplicate call id: ${callId}`);

    if (call) {
      this.pending.push(this.start(call, submittedAt));
      return;
    }
    // Known call id, but the item could not become a call: answer it with the error (or, once
    // the turn is aborted, with the aborted output like every other late submit).
    const placeholder = placeholderCall(item, callId);
    const record = new CallRecord<Ctx>(placeholder, submittedAt, this.turn, this.context);
    this.pending.push(record);
    if (this.aborted) return this.settleAborted(record);
    this.finish(record, failureItem(placeholder, errorText(buildError) ?? "invalid tool call", this.turn.truncationPolicy), false, false);
  }

  private reject(item: ResponseItem | UnknownItem, callId: string, reason: string): void {
    const toolName = itemName(item) ?? String(item.type);
    this.turn.logger.warn({ callId, toolName, reason }, "tool call rejected");
    emitEvent(this.turn, { type: "tool_call_rejected", callId, toolName, reason });
  }

  private start(call: ToolCall, submittedAt: number, callSignal?: AbortSignal): CallRecord<Ctx> {
    const record = new CallRecord<Ctx>(call, submittedAt, this.turn, this.context);
    if (this.aborted || callSignal?.aborted) {
      record.abortSignal(this.abortReason ?? abortReason(callSignal!));
      this.settleAborted(record);
      return record;
    }
    let parallel = false;
    try {
      parallel = this.router.callSupportsParallel(call);
    } catch (err) {
      this.turn.logger.warn({ err, callId: call.callId }, "supportsParallel threw; running the call exclusively");
    }
    this.live.add(record);
    callSignal?.addEventListener("abort", () => this.abortCall(record, abortReason(callSignal)), { once: true });
    void this.run(record, parallel);
    return record;
  }

  /** Requests the lock synchronously (so queue order is call order), then runs the call holding it. */
  private async run(record: CallRecord<Ctx>, parallel: boolean): Promise<void> {
    let release = this.lock.tryAcquire(!parallel);
    if (release) {
      record.lockGrantedAt = record.submittedAt;
    } else {
      try {
        release = await this.lock.acquire(!parallel);
      } catch (err) {
        this.live.delete(record);
        return this.finishWithError(record, err);
      }
      record.lockGrantedAt = now();
    }
    if (record.settled || record.aborted) {
      // Aborted while queued: it never starts, and its turn in the queue ends here.
      this.live.delete(record);
      release();
      return;
    }
    try {
      const result = await this.router.dispatch(record.call, record);
      record.gateWaitMs = result.timing.gateWaitMs;
      record.handlerMs = result.timing.handlerMs;
      this.finish(record, result.item, result.success, false);
    } catch (err) {
      this.finishWithError(record, err);
    } finally {
      // The slot is released only when the handler has settled, aborted or not.
      this.live.delete(record);
      release();
    }
  }

  private finishWithError(record: CallRecord<Ctx>, err: unknown): void {
    if (FunctionCallError.isFatal(err) && !record.settled && !this.aborted) {
      this.fatal = { callId: record.call.callId, message: err.message, reported: false };
      this.finish(record, failureItem(record.call, err.message, this.turn.truncationPolicy), false, false);
      this.abort(err.message);
      return;
    }
    if (!record.settled) this.turn.logger.error({ err, callId: record.call.callId }, "tool call failed outside its handler");
    const message = `tool ${record.call.toolName} failed: ${errorText(err) ?? "unknown error"}`;
    this.finish(record, failureItem(record.call, message, this.turn.truncationPolicy), false, false);
  }

  /** Answers the call with its aborted output, then lets its handler see the signal. */
  private abortCall(record: CallRecord<Ctx>, reason: string): void {
    this.settleAborted(record);
    record.abortSignal(reason);
  }

  private settleAborted(record: CallRecord<Ctx>): void {
    if (record.settled) return;
    this.finish(record, failureItem(record.call, this.abortedText(record), this.turn.truncationPolicy), false, true);
  }

  private abortedText(record: CallRecord<Ctx>): string {
    const elapsedMs = now() - record.submittedAt;
    if (this.fatal && this.fatal.callId !== record.call.callId) {
      return `aborted after ${seconds(elapsedMs)}s because the turn ended: ${this.fatal.message}`;
    }
    let seen: string | undefined;
    if (record.started) {
      const { handler, invocation } = record.started;
      try {
        seen = handler.abortedOutput?.(invocation);
      } catch (err) {
        this.turn.logger.warn({ err, callId: record.call.callId }, "abortedOutput threw");
      }
    }
    const text = SHELL_TOOLS.has(record.call.toolName)
      ? `Wall time: ${seconds(elapsedMs)} seconds\naborted by user`
      : `aborted by user after ${seconds(Math.max(elapsedMs, 100))}s`;
    return seen ? `${text}\nOutput:\n${seen}` : text;
  }

  private finish(record: CallRecord<Ctx>, item: ResponseInputItem, success: boolean, aborted: boolean): void {
    const outcome = record.settle(item, success, aborted);
    if (!outcome) return;
    const { callId, toolName, timing } = outcome;
    this.turn.logger.debug({ callId, toolName, success, aborted, timing }, "tool call finished");
    emitEvent(this.turn, { type: "tool_call_end", callId, toolName, success, aborted, timing });
  }
}

function itemName(item: ResponseItem | UnknownItem): string | undefined {
  const name = (item as Record<string, unknown>)["name"];
  return typeof name === "string" ? name : undefined;
}

function errorText(err: unknown): string | undefined {
  if (err === undefined) return undefined;
  return err instanceof Error ? err.message : String(err);
}

function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return typeof reason === "string" ? reason : reason instanceof Error ? reason.message : "aborted by user";
}

/** A stand-in call for an item that could not be built, so its answer has the right item type. */
function placeholderCall(item: ResponseItem | UnknownItem, callId: string): ToolCall {
  const toolName = itemName(item) ?? "";
  switch (item.type) {
    case "custom_tool_call":
      return { toolName, callId, payload: { kind: "custom", input: "" } };
    case "local_shell_call":
      return { toolName: "local_shell", callId, payload: { kind: "local_shell", params: { command: [] } } };
    default:
      return { toolName, callId, payload: { kind: "function", arguments: "" } };
  }
}
