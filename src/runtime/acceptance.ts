import { PreparedCall } from "../dispatch/index.js";
import {
  texts,
  type FunctionCallError,
  type PayloadKind,
  type ResponseInputItem,
  type ResponseItem,
  type ToolPayload,
  type UnknownItem,
} from "../protocol/index.js";
import type { ToolCallFailure, ToolRouter } from "../router/index.js";
import { emitEvent, type TurnContext } from "../turn/index.js";
import { errorText } from "../util/index.js";
import type { CallRecord, ToolCallOutcome } from "./callRecord.js";
import type { SubmitResult } from "./options.js";

const NOT_A_CALL: SubmitResult = Object.freeze({ accepted: false });

/**
 * A call a drain has taken, as the runtime keeps it for the rest of the turn: what a repeated
 * call id is compared with and answered from, and no more. A long turn keeps one per call, so
 * its record, prepared call and timing go (kept whole, they made sequential submit + drain
 * spend a third of its time collecting garbage).
 */
export class DrainedCall {
  readonly item: ResponseInputItem;
  readonly success: boolean;
  readonly aborted: boolean;
  /**
   * What a repeated call is compared with: a function call's argument text (its payload object
   * is not kept: one object fewer to survive per call of a long turn), else the payload.
   */
  private readonly compared: string | ToolPayload;

  constructor(
    readonly callId: string,
    readonly toolName: string,
    readonly payloadKind: PayloadKind,
    payload: ToolPayload,
    outcome: ToolCallOutcome,
  ) {
    this.item = outcome.item;
    this.success = outcome.success;
    this.aborted = outcome.aborted;
    this.compared = payload.kind === "function" ? payload.arguments : payload;
  }

  /** The same payload as this call's (compared as JSON). */
  samePayload(payload: ToolPayload): boolean {
    const compared = this.compared;
    if (typeof compared === "string") return payload.kind === "function" && payload.arguments === compared;
    return JSON.stringify(compared) === JSON.stringify(payload);
  }
}

/** A call id seen before with the same call: answered with the first call's output. */
export interface Repeated<Ctx> {
  first: CallRecord<Ctx> | DrainedCall;
}

/** A tool item that could not become a call but has a call id: accepted, answered with `reason`. */
export interface AcceptedFailure {
  callId: string;
  failure: ToolCallFailure;
  reason: string;
}

/**
 * Which items a runtime accepts (DESIGN section 3, "Accepting an item"): the router prepares
 * each item once; items without a call id and repeated call ids are rejected (logged, a
 * `tool_call_rejected` event, no output).
 */
export class Acceptance<Ctx> {
  /** Every accepted call by id (`remember`): a repeated id is replayed or rejected against the first. */
  private readonly calls = new Map<string, CallRecord<Ctx> | DrainedCall>();

  constructor(
    private readonly router: ToolRouter<Ctx>,
    private readonly turn: TurnContext,
  ) {}

  /** The call to start, a failure to answer, or what `submit` returns without an answer. */
  accept(item: ResponseItem | UnknownItem): PreparedCall<Ctx> | AcceptedFailure | Repeated<Ctx> | SubmitResult {
    const prepared = this.router.prepare(item, this.turn.logger);
    if (prepared === null) return NOT_A_CALL;
    if (prepared instanceof PreparedCall) {
      const { callId, toolName } = prepared.call;
      const first = this.calls.get(callId);
      if (first === undefined) return prepared;
      return sameCall(first, toolName, prepared.call.payload)
        ? { first }
        : this.reject(item, callId, toolName, texts.duplicateCallId(callId));
    }
    const { callId, toolName, error } = prepared;
    if (callId === undefined) return this.reject(item, "", toolName, messageOf(error));
    if (this.calls.has(callId)) return this.reject(item, callId, toolName, texts.duplicateCallId(callId));
    return { callId, failure: prepared, reason: messageOf(error) };
  }

  /** An accepted call, by its id. */
  remember(record: CallRecord<Ctx>): void {
    this.calls.set(record.callId, record);
  }

  /** A drain took `record`: from now on the call is kept small. */
  drained(record: CallRecord<Ctx>): void {
    const { prepared, result } = record;
    // A drained call with a prepared call is the one its id was accepted with (a replay's copy
    // has none); an item that could not become a call stays as it is (no later call is the same).
    if (prepared === undefined || result === undefined) return;
    const { callId, toolName, payloadKind } = record;
    this.calls.set(callId, new DrainedCall(callId, toolName, payloadKind, prepared.call.payload, result));
  }

  /** Every accepted call's id, in acceptance order. */
  callIds(): string[] {
    return [...this.calls.keys()];
  }

  /** An item that could not even be read (a proxy whose traps throw): nothing is accepted. */
  unreadable(err: unknown): SubmitResult {
    const reason = `unreadable item: ${errorText(err) ?? "unknown error"}`;
    this.turn.logger.warn({ reason }, "tool call rejected");
    emitEvent(this.turn, { type: "tool_call_rejected", callId: "", toolName: "", reason });
    return { accepted: false, reason };
  }

  private reject(item: ResponseItem | UnknownItem, callId: string, toolName: string, reason: string): SubmitResult {
    // A hostile item may carry any `type`: the event names it only when it is text.
    const name = toolName || (typeof item.type === "string" ? item.type : "");
    this.turn.logger.warn({ callId, toolName: name, reason }, "tool call rejected");
    emitEvent(this.turn, { type: "tool_call_rejected", callId, toolName: name, reason });
    return callId === "" ? { accepted: false, reason } : { accepted: false, callId, reason };
  }
}

/** The same tool with the same arguments (compared only when a call id comes again). */
function sameCall<Ctx>(first: CallRecord<Ctx> | DrainedCall, toolName: string, payload: ToolPayload): boolean {
  if (first.toolName !== toolName) return false;
  if (first instanceof DrainedCall) return first.samePayload(payload);
  // A record without a prepared call: an item that could not become a call; no later call is the same.
  const firstPayload = first.prepared?.call.payload;
  return firstPayload !== undefined && JSON.stringify(firstPayload) === JSON.stringify(payload);
}

function messageOf(err: FunctionCallError): string {
  return errorText(err) ?? "invalid tool call";
}
