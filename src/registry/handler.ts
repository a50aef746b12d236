import type { EscalationRequest, PolicySubject, ToolCall, ToolOutput, ToolPayload } from "../protocol/index.js";
import type { TurnContext, UserInputQuestion, UserInputResponse } from "../turn/index.js";
import type { CallLanding } from "./landing.js";

export type ToolKind = "function" | "mcp";

/** Everything a handler gets for one call. */
export interface ToolInvocation<Ctx = unknown> {
  callId: string;
  toolName: string;
  payload: ToolPayload;
  /**
   * Parsed and validated arguments for function and mcp payloads; the raw input string for
   * custom payloads; the `ShellToolCallParams` for local_shell payloads.
   */
  args: unknown;
  /**
   * Aborts when the call is aborted (runtime abort, call abort or fatal error elsewhere). Each
   * call has its own, created on first read; it may be a getter, so copy it explicitly when
   * cloning an invocation.
   */
  readonly signal: AbortSignal;
  /**
   * Calls `listener` once when the call is aborted (at once when it already was): all a handler
   * that only passes cancellation on needs, without the microseconds an `AbortSignal` costs per
   * call. Absent (an invocation built by hand): read `signal` instead.
   */
  onAbort?(listener: (reason: unknown) => void): void;
  turn: TurnContext;
  context: Ctx;
  /**
   * Asks a person to let this call step past the sandbox (a command the sandbox stopped, a
   * write outside the writable roots): true only on their allow. Absent (an invocation built
   * by hand): never granted.
   */
  escalate?(request: EscalationRequest): Promise<boolean>;
  /**
   * Asks a person these questions (`request_user_input`): their answers, `null` when they
   * dismissed them, `undefined` when none came within `timeoutMs`. Absent (an invocation built
   * by hand): nobody can answer.
   */
  requestUserInput?(questions: UserInputQuestion[], timeoutMs: number): Promise<UserInputResponse | null | undefined>;
  /** Set when a path rule judged the call; absent when none could. */
  readonly landing?: CallLanding | undefined;
}

export interface ToolHandler<Ctx = unknown> {
  readonly kind: ToolKind;
  /** Default: function handlers take function payloads, mcp handlers mcp payloads. */
  matchesKind?(payload: ToolPayload): boolean;
  /** Synchronous; may only downgrade a parallel-capable call to exclusive. */
  supportsParallel?(call: ToolCall): boolean;
  /** Mutating calls wait for the turn's readiness gate. Default false. */
  isMutating?(inv: ToolInvocation<Ctx>): boolean | Promise<boolean>;
  handle(inv: ToolInvocation<Ctx>): Promise<ToolOutput>;
  /**
   * The whole text an aborted call answers with (exec tools: the wall time and what the
   * command printed), or undefined for the default `aborted by user after {s.s}s`. `inv` is
   * undefined when the call was aborted before its handler started; `elapsedMs` counts from
   * submit. Must be synchronous and cheap: it runs inside `abort()`.
   */
  abortedOutput?(inv: ToolInvocation<Ctx> | undefined, elapsedMs: number): string | undefined;
  /** The commands or paths the policy judges this call by (built-in shell and file tools). */
  policySubject?(inv: ToolInvocation<Ctx>): PolicySubject;
  /** Rules for plugin tools: does `Tool(specifier)` match this call? */
  matchRule?(specifier: string, inv: ToolInvocation<Ctx>): boolean;
  /** What "allow_session" would remember for this call, most specific first. */
  suggestRules?(inv: ToolInvocation<Ctx>): string[];
}

export function handlerMatchesKind(handler: ToolHandler<never>, payload: ToolPayload): boolean {
  if (handler.matchesKind) return handler.matchesKind(payload);
  return handler.kind === "function" ? payload.kind === "function" : payload.kind === "mcp";
}

export type { PolicySubject };
