import { randomUUID } from "node:crypto";
import { PreparedCall } from "../dispatch/index.js";
import { respondToApproval, respondToUserInput } from "../policy/index.js";
import {
  texts,
  type ApprovalDecision,
  type ResponseInputItem,
  type ResponseItem,
  type ToolCall,
  type UnknownItem,
} from "../protocol/index.js";
import type { ToolRouter } from "../router/index.js";
import {
  dynamicCallBroker,
  type DynamicToolResponse,
  type TurnContext,
  type UserInputResponse,
} from "../turn/index.js";
import { now } from "../util/index.js";
import { Acceptance } from "./acceptance.js";
import { Answers } from "./answers.js";
import { CallRecord, type ToolCallOutcome } from "./callRecord.js";
import { abortReason, givenTurnId, runtimeLimits, type SubmitResult, type ToolCallRuntimeOptions } from "./options.js";
import { CallReports } from "./reports.js";
import { loadTurn, ranBefore, restore } from "./resume.js";
import { CallScheduler } from "./scheduler.js";
import { TurnLog } from "./turnLog.js";

export type { SubmitResult, ToolCallOutcome, ToolCallRuntimeOptions };

/**
 * Runs a turn's tool calls (Codex `ToolCallRuntime`, `parallel.rs`): each starts as soon as it is
 * submitted, shared calls overlap up to `maxConcurrency`, exclusive calls run alone, conflicting
 * calls keep submission order, and `drain()` answers every accepted call exactly once, in
 * submission order. The runtime accepts, answers and drains; its `CallScheduler` is the lock,
 * the deadlines and abort; the router prepares each call once and `src/dispatch` runs it. It
 * knows no tool by name.
 */
export class ToolCallRuntime<Ctx = unknown> {
  private readonly acceptance: Acceptance<Ctx>;
  /** The lock, the deadlines, dispatch and abort. */
  private readonly scheduler: CallScheduler<Ctx>;
  private readonly reports: CallReports;
  private readonly answers: Answers<Ctx>;
  private readonly turn: TurnContext;
  /** The turn id the options gave, else the one made when first read. */
  private id: string | undefined;
  /** The journal's side of this runtime, when the turn has a journal (DESIGN section 17). */
  private readonly log: TurnLog | undefined;

  constructor(
    private readonly router: ToolRouter<Ctx>,
    turn: TurnContext,
    opts: ToolCallRuntimeOptions<Ctx> = {},
  ) {
    this.id = givenTurnId(opts);
    const journal = turn.journal;
    this.log = journal && new TurnLog(journal, this.turnId, turn.logger, (tool) => router.toolIsIdempotent(tool));
    // Dispatch and the policy stage report to the journal through the turn they are given.
    this.reports = new CallReports(this.log ? { ...turn, callJournal: this.log } : turn, opts.onOutcome);
    this.turn = this.reports.turn;
    this.acceptance = new Acceptance(router, this.turn, () => this.answers.drain.undrained);
    this.answers = new Answers(this.turn, this.reports, this.log, this.acceptance, router.ledger);
    this.scheduler = new CallScheduler(
      this.turn,
      this.answers,
      this.reports,
      opts.context as Ctx,
      this.log && this.turnId,
      runtimeLimits(opts),
      router.shortestToolTimeoutMs(),
    );
    const external = opts.signal;
    if (external?.aborted) this.abort(abortReason(external));
    else
      external?.addEventListener(
        "abort",
        () => {
          this.abort(abortReason(external));
        },
        { once: true },
      );
  }

  /** The turn's id in its journal; every runtime has one (a UUID made when first read, unless given). */
  get turnId(): string {
    return (this.id ??= randomUUID());
  }

  get aborted(): boolean {
    return this.scheduler.aborted;
  }

  /** Accepts a model output item and starts its call at once. Never throws. */
  submit(item: ResponseItem | UnknownItem): SubmitResult {
    try {
      return this.accept(item, now());
    } catch (err) {
      return this.acceptance.unreadable(err);
    }
  }

  /** `journaled`: a resumed turn's call, already in the journal. */
  private accept(item: ResponseItem | UnknownItem, submittedAt: number, journaled = false): SubmitResult {
    const accepted = this.acceptance.accept(item);
    // The common case first: a new call.
    if (accepted instanceof PreparedCall) {
      const { callId, toolName } = accepted.call;
      if (!journaled) this.log?.accepted(callId, toolName, item, !accepted.exclusive);
      const record = this.scheduler.start(accepted, submittedAt);
      this.acceptance.placed(record);
      this.answers.drain.track(record);
      return { accepted: true, callId };
    }
    if ("first" in accepted) {
      this.answers.replay(accepted.first, submittedAt);
      return { accepted: true, callId: accepted.first.callId };
    }
    if (!("failure" in accepted)) return accepted;
    // A known call id, but the item could not become a call: answer it with the error (or, once
    // the turn is aborted, with the aborted output like every other late submit).
    const { callId, failure, reason } = accepted;
    if (!journaled) this.log?.accepted(callId, failure.toolName, item, false);
    const record = new CallRecord<Ctx>(callId, failure.toolName, failure.payloadKind, undefined, submittedAt);
    this.acceptance.placed(record);
    this.reports.accepted(callId, failure.toolName, failure.payloadKind, true);
    this.answers.drain.track(record);
    if (this.aborted) this.answers.aborted(record);
    else this.answers.text(record, reason);
    return { accepted: true, callId, reason };
  }

  /**
   * A runtime for a turn its journal knows (DESIGN section 17), e.g. after the agent's process
   * died: recorded outputs are answered as they were, in call order, without running their
   * calls; a call that was running runs again only when it does not mutate or its tool is
   * idempotent, else it is answered `interrupted`; calls that never started run now; a person's
   * recorded answer is not asked again. Submitting the turn's items again is safe. Needs
   * `createTurnContext({ journal })`.
   */
  static async resume<Ctx>(
    router: ToolRouter<Ctx>,
    turn: TurnContext,
    opts: ToolCallRuntimeOptions<Ctx> & { turnId: string },
  ): Promise<ToolCallRuntime<Ctx>> {
    const state = await loadTurn(turn, opts.turnId);
    const rt = new ToolCallRuntime(router, turn, opts);
    // Quotas survive the resume: what ran before counts (unless this router counted it itself).
    router.ledger.resumed(rt.turnId, ranBefore(state));
    restore(state, rt.log as TurnLog, {
      run: (item) => rt.accept(item, now(), true),
      answer: (call, item, success, aborted) => {
        // Prepared (never dispatched), so the same call sent again is known as the same.
        const prepared = router.prepare(call.item, turn.logger);
        const own = prepared instanceof PreparedCall ? prepared : undefined;
        const record = new CallRecord<Ctx>(call.callId, call.tool, call.kind, own, now());
        rt.acceptance.remember(record);
        rt.answers.drain.track(record);
        if (item) rt.answers.recorded(record, item, success, aborted);
        else rt.answers.text(record, texts.interrupted(call.tool));
      },
    });
    return rt;
  }

  /** Ends the turn in its journal (`turn_end`, durable when this settles), after the last drain. */
  async endTurn(): Promise<void> {
    await this.log?.end();
  }

  /** Every accepted call's id, in submission order (a resumed turn's journaled calls first). */
  callIds(): string[] {
    return this.acceptance.callIds();
  }

  /** Runs one call outside the submit/drain bookkeeping; rejects only with `FatalToolCallError`. */
  async handleToolCall(call: ToolCall, signal?: AbortSignal): Promise<ToolCallOutcome> {
    const prepared = this.router.prepareCall(call, this.turn.logger);
    const outcome = await this.scheduler.start(prepared, now(), signal).outcome;
    this.answers.drain.reportFatal([outcome]);
    return outcome;
  }

  drain(): Promise<ResponseInputItem[]> {
    return this.drainOutcomes().then((outcomes) => outcomes.map((o) => o.item));
  }

  /** Outcomes of every call submitted since the last drain, in submission order. A fatal error rejects. */
  drainOutcomes(): Promise<ToolCallOutcome[]> {
    return this.answers.drain.outcomes();
  }

  /** Answers every pending call with its aborted output now; queued calls never start. */
  abort(reason?: string): void {
    this.scheduler.abort(reason);
  }

  /**
   * Aborts one call, as `abort()` does every call: it is answered at once with its aborted
   * output and its processes are killed; the turn goes on. False when no call with that id
   * is still running or queued.
   */
  cancel(callId: string): boolean {
    return this.scheduler.cancel(callId);
  }

  /** Delivers the embedder's answer to a waiting dynamic tool call; false if none is waiting. */
  respondToDynamicToolCall(callId: string, response: DynamicToolResponse): boolean {
    return dynamicCallBroker(this.turn).respond(callId, response);
  }

  /** Answers a call waiting for approval (after an `approval_request` event); false if none is waiting. */
  respondToApproval(callId: string, decision: ApprovalDecision): boolean {
    return respondToApproval(this.turn, callId, decision);
  }

  /**
   * Delivers a person's answers to a waiting `request_user_input` call (after a
   * `user_input_request` event), `null` when they dismissed the questions; false if none is
   * waiting. Throws a TypeError naming the problem when `response` is not a UserInputResponse.
   */
  respondToUserInput(callId: string, response: UserInputResponse | null): boolean {
    return respondToUserInput(this.turn, callId, response);
  }
}
