import type { EscalationRequest, ToolCall } from "../protocol/index.js";
import { escalate, requestUserInput } from "../policy/index.js";
import type { CallLanding, ToolInvocation } from "../registry/index.js";
import type { TurnContext, UserInputQuestion, UserInputResponse } from "../turn/index.js";
import type { PreparedCall } from "./preparedCall.js";

/**
 * A class rather than a literal: V8 builds it far faster than an object literal with a getter.
 * `signal` is read through from the prepared call, so it is only created when a handler uses it
 * (it and `onAbort` live on the prototype: copy them explicitly when cloning an invocation).
 */
export class Invocation<Ctx> implements ToolInvocation<Ctx> {
  readonly callId: string;
  readonly toolName: string;
  readonly payload: ToolCall["payload"];
  readonly turn: TurnContext;
  readonly context: Ctx;

  constructor(
    private readonly prepared: PreparedCall<Ctx>,
    turn: TurnContext,
    context: Ctx,
    readonly args: unknown,
    readonly landing?: CallLanding,
  ) {
    const { call } = prepared;
    this.callId = call.callId;
    this.toolName = call.toolName;
    this.payload = call.payload;
    this.turn = turn;
    this.context = context;
  }

  get signal(): AbortSignal {
    return this.prepared.signal;
  }

  onAbort(listener: (reason: unknown) => void): void {
    this.prepared.onAbort(listener);
  }

  escalate(request: EscalationRequest): Promise<boolean> {
    return escalate(this, request, this.prepared);
  }

  requestUserInput(questions: UserInputQuestion[], timeoutMs: number): Promise<UserInputResponse | null | undefined> {
    return requestUserInput(this, questions, timeoutMs);
  }

  /** The same call with other arguments (a hook's rewrite, a middleware's `next(args)`). */
  withArgs(args: unknown): Invocation<Ctx> {
    return new Invocation(this.prepared, this.turn, this.context, args, this.landing);
  }

  /** The same call, its paths judged where they land (the policy stage's allow). */
  withLanding(landing: CallLanding): Invocation<Ctx> {
    return new Invocation(this.prepared, this.turn, this.context, this.args, landing);
  }
}
