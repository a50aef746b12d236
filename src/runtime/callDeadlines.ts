import { texts } from "../protocol/index.js";
import { emitEvent, type TurnContext } from "../turn/index.js";
import { timerDelay } from "../util/index.js";
import { DeadlineState, type CallRecord } from "./callRecord.js";
import { deadlineWheel, type DeadlineOwner, type DeadlineSlot } from "./deadlineWheel.js";

/** What the deadlines need from their runtime. */
export interface DeadlineHost<Ctx> {
  readonly turn: TurnContext;
  /** The calls whose handler may still run. */
  running(): Iterable<CallRecord<Ctx>>;
  /** Answers the call with `text` (not as aborted). */
  settleText(record: CallRecord<Ctx>, text: string): void;
  /** Gives up on the call's handler: its slot goes back (once) and it leaves the running calls. */
  release(record: CallRecord<Ctx>): void;
}

/**
 * One runtime's call deadlines (DESIGN section 11): every call has one, the spec's `timeoutMs`
 * or the runtime's `toolTimeoutMs`, counted from the handler's start. Per call this is a
 * counter and a comparison; the process-wide wheel does the timing.
 */
export class CallDeadlines<Ctx> implements DeadlineOwner {
  /** What the wheel holds: this runtime only while one of its deadlines is live. */
  private readonly slot: DeadlineSlot = { owner: undefined, watched: false };
  private live = 0;
  /** `toolTimeoutMs`, or a spec's shorter one: when a call may first be due. */
  private readonly shortest: number;
  /** Expired calls' leak-grace timers (rare: only calls that passed their deadline). */
  private readonly leakTimers = new Map<CallRecord<Ctx>, NodeJS.Timeout>();

  constructor(
    private readonly host: DeadlineHost<Ctx>,
    private readonly toolTimeoutMs: number,
    private readonly leakGraceMs: number,
    shortestSpecTimeoutMs: number | undefined,
  ) {
    this.shortest = Math.min(toolTimeoutMs, shortestSpecTimeoutMs ?? Infinity);
  }

  /** The call holds its slot since `at` and is about to start: its deadline is live. */
  start(record: CallRecord<Ctx>, at: number): void {
    record.deadline = DeadlineState.Live;
    if (this.live++ === 0) this.slot.owner = this;
    // The shortest deadline any tool has, counted from the grant: never later than the call's
    // own (counted from the handler's start); the sweep finds that one (no lookup per call).
    deadlineWheel.watch(this.slot, at + this.shortest);
  }

  /** The handler settled (or the call was released as leaked): its deadline is over. */
  end(record: CallRecord<Ctx>): void {
    if (record.deadline === DeadlineState.None) return;
    if (record.deadline === DeadlineState.Expired) {
      clearTimeout(this.leakTimers.get(record));
      this.leakTimers.delete(record);
    }
    record.deadline = DeadlineState.None;
    if (--this.live === 0) this.slot.owner = undefined;
  }

  /** Expires the running calls whose deadline is due; returns the next deadline. */
  sweepDeadlines(at: number): number {
    let next = Infinity;
    for (const record of this.host.running()) {
      if (record.deadline !== DeadlineState.Live) continue;
      // Not started yet (waiting for approval or the gate): look again one deadline later.
      const due = (record.startedAt ?? at) + this.timeoutOf(record);
      if (due > at) next = Math.min(next, due);
      else this.expire(record);
    }
    return next;
  }

  private timeoutOf(record: CallRecord<Ctx>): number {
    // The tool's own deadline (`pushSpec(spec, { timeoutMs })`), resolved once by the router.
    return record.prepared?.timeoutMs ?? this.toolTimeoutMs;
  }

  /**
   * The deadline passed: the call is answered, its signal aborts with a `TimeoutError`, and its
   * slot is released when the handler settles or `leakGraceMs` later, whichever is first;
   * releasing early is reported as `tool_call_leaked`.
   */
  private expire(record: CallRecord<Ctx>): void {
    record.deadline = DeadlineState.Expired;
    const timeoutMs = this.timeoutOf(record);
    this.host.settleText(record, texts.deadline(record.toolName, timeoutMs));
    const timeout = new Error(`deadline of ${timeoutMs} ms passed`);
    timeout.name = "TimeoutError";
    record.prepared?.abort(timeout);
    const leak = setTimeout(() => {
      if (!record.holdsSlot) return;
      const { callId, toolName } = record;
      const { turn } = this.host;
      turn.logger.warn({ callId, toolName, timeoutMs }, "a handler ignored its deadline; its lock slot is released");
      emitEvent(turn, { type: "tool_call_leaked", callId, toolName, timeoutMs });
      this.host.release(record);
    }, timerDelay(this.leakGraceMs));
    this.leakTimers.set(record, leak);
  }
}
