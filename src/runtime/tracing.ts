import {
  context,
  ProxyTracerProvider,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
  type Tracer,
} from "@opentelemetry/api";
import type { PayloadKind } from "../protocol/index.js";
import type { ToolEvent } from "../turn/index.js";
import { PACKAGE_VERSION } from "../util/index.js";
import type { ToolCallOutcome } from "./callRecord.js";

const TRACER_NAME = "toolcall-runtime";

/**
 * The tracer of the registered OpenTelemetry provider, or undefined when none is registered
 * (the API's global proxy has no delegate): then the runtime creates no span at all, not even
 * a non-recording one, so tracing costs one field test per call when off.
 */
function registeredTracer(): Tracer | undefined {
  const provider = trace.getTracerProvider();
  // Deprecated for API 2.x (we depend on ~1.9): the one way to tell "no provider" without a span.
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  return provider instanceof ProxyTracerProvider
    ? provider.getDelegateTracer(TRACER_NAME, PACKAGE_VERSION)
    : provider.getTracer(TRACER_NAME, PACKAGE_VERSION);
}

/**
 * One span per call, GenAI semantic conventions (`execute_tool {tool}`): started at submit as
 * a child of the span active there, ended when the call is answered, with the call's timing,
 * outcome and (when a person was asked) the approval decision.
 */
export class CallTracing {
  private readonly spans = new Map<string, Span>();

  private constructor(private readonly tracer: Tracer) {}

  /** Undefined unless a tracer provider is registered. */
  static create(): CallTracing | undefined {
    const tracer = registeredTracer();
    return tracer ? new CallTracing(tracer) : undefined;
  }

  begin(callId: string, toolName: string, kind: PayloadKind, exclusive: boolean): void {
    const span = this.tracer.startSpan(
      `execute_tool ${toolName}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": toolName,
          "gen_ai.tool.call.id": callId,
          // The conventions' word for a tool run by another service.
          "gen_ai.tool.type": kind === "mcp" ? "extension" : "function",
          "toolcall.payload_kind": kind,
          "toolcall.exclusive": exclusive,
        },
      },
      context.active(),
    );
    this.spans.set(callId, span);
  }

  /** The turn's events: approval decisions land on their call's span. */
  observe(event: ToolEvent): void {
    if (event.type !== "approval_decided") return;
    this.spans.get(event.callId)?.setAttributes({
      "toolcall.approval.decision": event.decision,
      "toolcall.approval.decided_by": event.by,
    });
  }

  end(outcome: ToolCallOutcome): void {
    const span = this.spans.get(outcome.callId);
    if (!span) return;
    this.spans.delete(outcome.callId);
    const { timing } = outcome;
    span.setAttributes({
      "toolcall.success": outcome.success,
      "toolcall.aborted": outcome.aborted,
      "toolcall.queued_ms": timing.queuedMs,
      "toolcall.lock_wait_ms": timing.lockWaitMs,
      "toolcall.gate_wait_ms": timing.gateWaitMs,
      "toolcall.handler_ms": timing.handlerMs,
    });
    if (!outcome.success) {
      span.setAttribute("error.type", outcome.aborted ? "aborted" : "tool_error");
      span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.aborted ? "aborted" : "the tool call failed" });
    }
    span.end();
  }
}
