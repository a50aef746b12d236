import { PreparedCall } from "../dispatch/index.js";
import {
  texts,
  type FunctionCallError,
  type ResponseItem,
  type ToolPayload,
  type UnknownItem,
} from "../protocol/index.js";
import type { ToolCallFailure, ToolRouter } from "../router/index.js";
import { emitEvent, type TurnContext } from "../turn/index.js";
import { errorText } from "../util/index.js";
import type { CallRecord } from "./callRecord.js";
import { DrainedCall, DrainedCalls } from "./drainedCalls.js";
import type { SubmitResult } from "./options.js";

const NOT_A_CALL: SubmitResult = Object.freeze({ accepted: false });

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
  /** Every accepted call id, in acceptance order: one hash operation per call. */
  private readonly ids = new Set<string>();
  /** What a repeated id is compared with and answered from, of each call a drain took. */
  private readonly drainedCalls = new DrainedCalls();
  /**
   * Call id -> its first call (a record not drained yet, or its position in `drainedCalls`): built
   * when an id first comes again (most turns never repeat one), kept up to date from then on.
   */
  private firsts: Map<string, CallRecord<Ctx> | number> | undefined;

  constructor(
    private readonly router: ToolRouter<Ctx>,
    private readonly turn: TurnContext,
    /** The accepted calls no drain has taken yet, in acceptance order. */
    private readonly undrained: () => readonly CallRecord<Ctx>[],
  ) {}

  /** The call to start, a failure to answer, or what `submit` returns without an answer. */
  accept(item: ResponseItem | UnknownItem): PreparedCall<Ctx> | AcceptedFailure | Repeated<Ctx> | SubmitResult {
    const prepared = this.router.prepare(item, this.turn.logger);
    if (prepared === null) return NOT_A_CALL;
    if (prepared instanceof PreparedCall) {
      const { callId, toolName } = prepared.call;
      if (this.isNew(callId)) return prepared;
      const first = this.first(callId);
      return first !== undefined && sameCall(first, toolName, prepared.call.payload)
        ? { first }
        : this.reject(item, callId, toolName, texts.duplicateCallId(callId));
    }
    const { callId, toolName, error } = prepared;
    if (callId === undefined) return this.reject(item, "", toolName, messageOf(error));
    if (!this.isNew(callId)) return this.reject(item, callId, toolName, texts.duplicateCallId(callId));
    return { callId, failure: prepared, reason: messageOf(error) };
  }

  /** The record of a call `accept` accepted (its id is known already). */
  placed(record: CallRecord<Ctx>): void {
    this.firsts?.set(record.callId, record);
  }

  /** An accepted call that did not come through `accept` (a resumed turn's answered call), by its id. */
  remember(record: CallRecord<Ctx>): void {
    if (this.isNew(record.callId)) this.placed(record);
  }

  /** A drain took `record`: from now on the call is kept small. */
  drained(record: CallRecord<Ctx>): void {
    const { prepared, result } = record;
    // A drained call with a prepared call is the one its id was accepted with (a replay's copy
    // has none); an item that could not become a call is no longer looked for (a repeated id
    // that finds nothing is refused, as one finding it would be).
    if (prepared === undefined || result === undefined) return;
    const at = this.drainedCalls.add(prepared.call.payload, result);
    const firsts = this.firsts;
    if (firsts !== undefined && firsts.get(record.callId) === record) firsts.set(record.callId, at);
  }

  /** Every accepted call's id, in acceptance order. */
  callIds(): string[] {
    return [...this.ids];
  }

  /** An item that could not even be read (a proxy whose traps throw): nothing is accepted. */
  unreadable(err: unknown): SubmitResult {
    const reason = `unreadable item: ${errorText(err) ?? "unknown error"}`;
    this.turn.logger.warn({ reason }, "tool call rejected");
    emitEvent(this.turn, { type: "tool_call_rejected", callId: "", toolName: "", reason });
    return { accepted: false, reason };
  }

  /** Adds the id; false when it was accepted before. */
  private isNew(callId: string): boolean {
    const known = this.ids.size;
    return this.ids.add(callId).size !== known;
  }

  /** The first call accepted with this id, if it can still be found. */
  private first(callId: string): CallRecord<Ctx> | DrainedCall | undefined {
    const firsts = (this.firsts ??= this.indexFirsts());
    const first = firsts.get(callId);
    return typeof first === "number" ? this.drainedCalls.at(first) : first;
  }

  private indexFirsts(): Map<string, CallRecord<Ctx> | number> {
    const firsts = new Map<string, CallRecord<Ctx> | number>();
    const drained = this.drainedCalls;
    for (let at = 0; at < drained.length; at++) if (!firsts.has(drained.idAt(at))) firsts.set(drained.idAt(at), at);
    // A replay's copy comes after its first: the first is kept.
    for (const record of this.undrained()) if (!firsts.has(record.callId)) firsts.set(record.callId, record);
    return firsts;
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
