import type { EscalationRequest, ToolCall } from "../protocol/index.js";
import type { ToolInvocation } from "../registry/index.js";
import type { TurnContext } from "../turn/index.js";
import type { DispatchOptions } from "./router.js";
import { escalate } from "./policyStage.js";

/**
 * A class rather than a literal: V8 builds it far faster than an object literal with a getter.
 * `signal` is read through from the dispatch options, so a signal the caller creates lazily is
 * only created when a handler uses it (it and `onAbort` live on the prototype: copy them
 * explicitly when cloning an invocation).
 */
export class Invocation<Ctx> implements ToolInvocation<Ctx> {
  readonly callId: string;
  readonly toolName: string;
  readonly payload: ToolCall["payload"];
  readonly turn: TurnContext;
  readonly context: Ctx;

  constructor(
    private readonly call: ToolCall,
    readonly args: unknown,
    private readonly opts: DispatchOptions<Ctx>,
  ) {
    this.callId = call.callId;
    this.toolName = call.toolName;
    this.payload = call.payload;
    this.turn = opts.turn;
    this.context = opts.context as Ctx;
  }

  get signal(): AbortSignal {
    return this.opts.signal;
  }

  onAbort(listener: (reason: unknown) => void): void {
    if (this.opts.onAbort) {
      this.opts.onAbort(listener);
      return;
    }
    const signal = this.opts.signal;
    if (signal.aborted) listener(signal.reason);
    else
      signal.addEventListener(
        "abort",
        () => {
          listener(signal.reason);
        },
        { once: true },
      );
  }

  escalate(request: EscalationRequest): Promise<boolean> {
    return escalate(this, request, this.opts);
  }

  /** The same call with other arguments (a hook's rewrite, a middleware's `next(args)`). */
  withArgs(args: unknown): Invocation<Ctx> {
    return new Invocation(this.call, args, this.opts);
  }
}
