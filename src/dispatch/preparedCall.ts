import type { Logger } from "pino";
import { texts, type ResponseInputItem, type ToolCall } from "../protocol/index.js";
import type { PolicySubject, RegisteredTool, ToolInvocation } from "../registry/index.js";
import type { SessionLedger } from "../ledger/index.js";
import type { ArgumentRepair, SpillStore, TurnContext } from "../turn/index.js";
import { errorText } from "../util/index.js";

/**
 * What one router shares with every call it prepares: the session its hooks name, where cut
 * answers are kept whole, and which tools may be called now (read when the call is dispatched,
 * with the lock held: an earlier call may have activated a tool meanwhile).
 */
export interface DispatchScope<Ctx> {
  readonly sessionId: string;
  readonly spill: SpillStore | undefined;
  readonly logger: Logger | undefined;
  /**
   * The answer refusing a tool that is registered but not callable now (deferred, inactive
   * group); absent when the router has no tool groups (no call per call then).
   */
  readonly unavailable: ((toolName: string, tool: RegisteredTool<Ctx>) => string | undefined) | undefined;
  /** Repair malformed arguments where the meaning is certain (DESIGN section 18). */
  readonly repair: boolean;
  /** The session's quotas, loops and usage (DESIGN section 18). */
  readonly ledger: SessionLedger;
  /** The names of the tools offered now: an unknown name may fold to one of them. */
  offered(): string[];
}

/**
 * Where a dispatched call reports: one object per runtime, not per call (the call hands back the
 * `owner` it was dispatched with). The only way the pipeline speaks upwards. No method may throw.
 */
export interface DispatchHost<Ctx, T> {
  readonly turn: TurnContext;
  readonly context: Ctx;
  /** Emit `tool_call_begin` when the handler starts (the runtime does; a bare `router.dispatch` never did). */
  readonly announcesBegin: boolean;
  /**
   * A journaled turn's id, which per-turn quotas count by (its resume is the same turn);
   * undefined: they count by the turn context.
   */
  readonly turnId?: string | undefined;
  /** The call's answer: its output, or the failure output every non-fatal error becomes. */
  settled(owner: T, item: ResponseInputItem, success: boolean): void;
  /** What the pipeline could not answer: a `Fatal` error (the turn ends), or an error while answering. */
  failed(owner: T, err: unknown): void;
  /** A person answered "abort": the call is answered with `text` and the turn ends now. */
  abortTurn(owner: T, text: string): void;
}

/**
 * One call resolved once by the router (Codex `ToolCall` + its `ConfiguredToolSpec`): the call,
 * its tool, shared or exclusive, its deadline, its abort text and its policy subject. The
 * runtime holds it under the lock; `dispatch` runs it through the pipeline, keeping on it what
 * the call's own life needs: its abort signal (made only when read), the invocation the handler
 * got, and its timing. One object per call, with no promise of its own.
 */
export class PreparedCall<Ctx = unknown> {
  /** Set by `dispatch` before anything reads it: who hears the answer. */
  host!: DispatchHost<Ctx, unknown>;
  owner: unknown;
  /** What the handler got, once it started: `abortedText` gives it to `abortedOutput`. */
  invocation: ToolInvocation<Ctx> | undefined;
  /** When the handler started (lock held, policy and gate passed); its deadline counts from here. */
  startedAt: number | undefined;
  gateWaitMs = 0;
  handlerMs = 0;
  /** What repair did to its arguments (DESIGN section 18): its answer's first line says so. */
  repairs: readonly ArgumentRepair[] | undefined;
  private abortReason: unknown;
  private controller: AbortController | undefined;
  /** `onAbort` listeners: most calls have none, an MCP call one. */
  private abortListeners: Array<(reason: unknown) => void> | undefined;

  constructor(
    readonly call: ToolCall,
    /** Undefined: no tool of that name (answered `unsupported call`). */
    readonly tool: RegisteredTool<Ctx> | undefined,
    /** Runs alone (the lock's exclusive mode): the spec flag, then the handler's per-call say. */
    readonly exclusive: boolean,
    readonly scope: DispatchScope<Ctx>,
    /** What resolving the tool threw, answered when the call is dispatched. */
    readonly unresolved?: unknown,
  ) {}

  /** The tool's own deadline (`pushSpec(spec, { timeoutMs })`); undefined: the runtime's `toolTimeoutMs`. */
  get timeoutMs(): number | undefined {
    return this.tool?.timeoutMs;
  }

  /** The commands or paths the policy judges this call by, from its (validated) arguments. */
  policySubject(invocation: ToolInvocation<Ctx>): PolicySubject | undefined {
    return this.tool?.handler.policySubject?.(invocation);
  }

  /**
   * The text an aborted call answers with: its handler's `abortedOutput` when it gives one, else
   * `aborted by user after {s.s}s`. `elapsedMs` counts from submit.
   */
  abortedText(elapsedMs: number): string {
    try {
      const text = this.tool?.handler.abortedOutput?.(this.invocation, elapsedMs);
      if (typeof text === "string") return text;
    } catch (err) {
      this.scope.logger?.warn({ err: errorText(err), callId: this.call.callId }, "abortedOutput threw");
    }
    return texts.abortedAfter(elapsedMs);
  }

  /** `ToolInvocation.signal`: made on first read (an `AbortSignal` costs microseconds; most handlers never look). */
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

  /** `ToolInvocation.onAbort`: no `AbortSignal` is made for it. */
  onAbort(listener: (reason: unknown) => void): void {
    if (this.abortReason !== undefined) listener(this.abortReason);
    else (this.abortListeners ??= []).push(listener);
  }

  /** Aborts the call's signal (the runtime decides when: abort, cancel, a fatal error, the deadline). */
  abort(reason: unknown): void {
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
        this.host.turn.logger.warn({ err: errorText(err), callId: this.call.callId }, "abort listener threw");
      }
    }
  }

  /** How long the handler has run (0 before it started). */
  handlerTime(at: number): number {
    return this.startedAt === undefined ? 0 : at - this.startedAt;
  }

  /** A person answered "abort" (the policy stage, an escalation): reported to the host. */
  abortTurn(text: string): void {
    this.host.abortTurn(this.owner, text);
  }
}
