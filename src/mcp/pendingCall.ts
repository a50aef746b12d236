import { texts } from "../protocol/index.js";
import { timerDelay } from "../util/index.js";
import { McpCallError } from "./callError.js";

/**
 * One running tools/call: its deadline and its cancellation, in one object per call.
 *
 * The deadline is run here rather than by the SDK so it can pause: progress re-arms it, and it
 * waits while the server asks a person (elicitation) or a model (sampling).
 *
 * The SDK gets the object as the request's `AbortSignal` and reads only `aborted`, `reason`,
 * `throwIfAborted` and one `abort` listener (which sends `notifications/cancelled`): a real
 * AbortController and its listener cost about 8 µs of CPU per call (bench `mcp`), and most
 * calls are never aborted. test/mcp/cancellation.test.ts checks that an abort still reaches the
 * server.
 */
export class PendingCall {
  aborted = false;
  reason: unknown;
  /** Aborted by the caller, not by the deadline. */
  cancelled = false;
  private listener: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly ms: number) {}

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  addEventListener(_type: "abort", listener: () => void): void {
    this.listener = listener;
  }

  removeEventListener(): void {
    this.listener = undefined;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.listener?.();
  }

  cancel(reason: unknown): void {
    if (!this.aborted) this.cancelled = true;
    this.abort(reason);
  }

  /** (Re)starts the deadline; `refresh` re-arms without a new timer. */
  arm(): void {
    if (this.timer) this.timer.refresh();
    else this.timer = setTimeout(expire, timerDelay(this.ms), this);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  timedOut(): McpCallError {
    return new McpCallError(texts.mcpTimedOut("tools/call", this.ms), { timedOut: true });
  }
}

/** A module-level timer callback: no closure per call. */
function expire(call: PendingCall): void {
  call.abort(call.timedOut());
}

/**
 * The deadlines of one server's running calls, paused while the server asks a person or a
 * model something (its own request runs on the server's time, not the call's).
 */
export class CallDeadlines {
  private readonly running = new Set<PendingCall>();
  /** Server requests (elicitation, sampling) being answered now. */
  private asking = 0;

  start(call: PendingCall): void {
    this.running.add(call);
    if (this.asking === 0) call.arm();
  }

  /** Progress re-arms the deadline (unless paused). */
  progress(call: PendingCall): void {
    if (this.asking === 0) call.arm();
  }

  end(call: PendingCall): void {
    call.stop();
    this.running.delete(call);
  }

  /** Runs a server request's answer with every call's deadline paused. */
  async paused<T>(run: () => Promise<T>): Promise<T> {
    if (this.asking++ === 0) for (const d of this.running) d.stop();
    try {
      return await run();
    } finally {
      if (--this.asking === 0) for (const d of this.running) d.arm();
    }
  }
}
