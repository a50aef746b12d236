import { texts } from "../protocol/index.js";
import { now, timerDelay } from "../util/index.js";
import { McpCallError } from "./callError.js";

/**
 * One running tools/call: its deadline and its cancellation, in one object per call.
 *
 * The deadline is run here (`CallDeadlines`) rather than by the SDK so it can pause: progress
 * restarts it, and it waits while the server asks a person (elicitation) or a model (sampling).
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
  /** When the deadline passes (`now()` ms); Infinity while it waits (see `CallDeadlines`). */
  due = Infinity;
  private listener: (() => void) | undefined;

  constructor(readonly ms: number) {}

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

  timedOut(): McpCallError {
    return new McpCallError(texts.mcpTimedOut("tools/call", this.ms), { timedOut: true });
  }
}

/**
 * The deadlines of one server's running calls, on one timer rather than one per call (a timer
 * costs about as much as the rest of what a call adds over the SDK): a call's deadline is a
 * number, and the timer, due at the earliest one it knows of, expires what is due and re-arms.
 * Deadlines are paused while the server asks a person or a model something (its own request
 * runs on the server's time, not the call's); each starts again in full once it answered.
 */
export class CallDeadlines {
  private readonly running = new Set<PendingCall>();
  /** Server requests (elicitation, sampling) being answered now. */
  private asking = 0;
  private timer: NodeJS.Timeout | undefined;
  private armedAt = Infinity;

  start(call: PendingCall): void {
    this.running.add(call);
    if (this.asking === 0) this.rearm(call);
  }

  /** Progress restarts the deadline (unless paused); it only moves later, so the timer stays. */
  progress(call: PendingCall): void {
    if (this.asking === 0) call.due = now() + call.ms;
  }

  end(call: PendingCall): void {
    this.running.delete(call);
  }

  /** Runs a server request's answer with every call's deadline paused. */
  async paused<T>(run: () => Promise<T>): Promise<T> {
    if (this.asking++ === 0) {
      clearTimeout(this.timer);
      this.armedAt = Infinity;
      for (const call of this.running) call.due = Infinity;
    }
    try {
      return await run();
    } finally {
      if (--this.asking === 0) for (const call of this.running) this.rearm(call);
    }
  }

  private rearm(call: PendingCall): void {
    call.due = now() + call.ms;
    if (call.due < this.armedAt) this.arm(call.due);
  }

  /**
   * Unref'd: an idle connection's timer, left armed rather than cleared and set again per call,
   * must not keep the process alive (a running request's own SDK timer does).
   */
  private arm(at: number): void {
    clearTimeout(this.timer);
    this.armedAt = at;
    this.timer = setTimeout(this.sweep, timerDelay(at - now())).unref();
  }

  private readonly sweep = (): void => {
    this.timer = undefined;
    this.armedAt = Infinity;
    const at = now();
    let next = Infinity;
    for (const call of this.running) {
      if (call.due <= at) call.abort(call.timedOut());
      else next = Math.min(next, call.due);
    }
    if (next < Infinity) this.arm(next);
  };
}
