import type { PayloadKind } from "../protocol/index.js";
import { debugEnabled, emitEvent, type TurnContext } from "../turn/index.js";
import { errorText } from "../util/index.js";
import type { ToolCallOutcome } from "./callRecord.js";
import { CallTracing } from "./tracing.js";

/**
 * What the world hears of a runtime's calls: a span per call (only with an OpenTelemetry
 * provider), `onOutcome`, the debug log and `tool_call_end`. None of them can fail a call.
 */
export class CallReports {
  /** The runtime's turn: with tracing and a listener, the listener's events also reach the spans. */
  readonly turn: TurnContext;
  /** Spans per call, when a tracer provider is registered (checked here, once). */
  private readonly tracing = CallTracing.create();

  constructor(
    turn: TurnContext,
    private readonly onOutcome: ((outcome: ToolCallOutcome) => void) | undefined,
  ) {
    const tracing = this.tracing;
    const listener = turn.onEvent;
    // Approval decisions reach the spans through the events; with no listener there are none
    // (and adding one would change who answers approvals).
    this.turn =
      tracing && listener
        ? {
            ...turn,
            onEvent: (event) => {
              tracing.observe(event);
              listener(event);
            },
          }
        : turn;
  }

  /** A call was accepted. */
  accepted(callId: string, toolName: string, kind: PayloadKind, exclusive: boolean): void {
    this.tracing?.begin(callId, toolName, kind, exclusive);
  }

  /** A call settled (once); `tokens`: its output's estimated size for the model. */
  settled(outcome: ToolCallOutcome, tokens: number): void {
    const { turn } = this;
    this.tracing?.end(outcome);
    if (this.onOutcome) {
      try {
        this.onOutcome(outcome);
      } catch (err) {
        turn.logger.warn({ err: errorText(err), callId: outcome.callId }, "onOutcome listener threw");
      }
    }
    const { callId, toolName, success, aborted, timing } = outcome;
    // No object per call for a level that is off (serve-mcp's logger is at error).
    if (debugEnabled(turn.logger)) {
      turn.logger.debug({ callId, toolName, success, aborted, timing }, "tool call finished");
    }
    // The event object is built only when someone listens.
    if (turn.onEvent) emitEvent(turn, { type: "tool_call_end", callId, toolName, success, aborted, timing, tokens });
  }
}
