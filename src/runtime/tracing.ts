import type { Span, SpanKind, SpanStatusCode, Tracer, TracerProvider } from "@opentelemetry/api";
import type { PayloadKind } from "../protocol/index.js";
import type { ToolEvent } from "../turn/index.js";
import { PACKAGE_VERSION } from "../util/index.js";
import type { ToolCallOutcome } from "./callRecord.js";

const TRACER_NAME = "toolcall-runtime";
/** `SpanKind.INTERNAL` and `SpanStatusCode.ERROR` of `@opentelemetry/api`: its enums' values, without loading it. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment -- the enum's published value
const SPAN_KIND_INTERNAL = 0 as SpanKind.INTERNAL;
// eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment -- the enum's published value
const STATUS_ERROR = 2 as SpanStatusCode.ERROR;

/**
 * Where every copy of `@opentelemetry/api` 1.x keeps its globals (its own cross-copy
 * contract): `trace` is set only once a tracer provider is registered.
 */
const OTEL_GLOBALS = Symbol.for("opentelemetry.js.api.1");

/**
 * The tracer of the registered OpenTelemetry provider, or undefined when none is registered:
 * then the runtime creates no span at all, not even a non-recording one. Read from the API's
 * globals rather than by importing it, which would cost every process that never traces tens
 * of milliseconds at start-up; the embedder who registers a provider has loaded the API.
 */
function registeredTracer(): Tracer | undefined {
  const globals = (globalThis as Record<symbol, { trace?: TracerProvider } | undefined>)[OTEL_GLOBALS];
  return globals?.trace?.getTracer(TRACER_NAME, PACKAGE_VERSION);
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
    // The tracer parents it to the span active here (its context manager's).
    const span = this.tracer.startSpan(`execute_tool ${toolName}`, {
      kind: SPAN_KIND_INTERNAL,
      attributes: {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": toolName,
        "gen_ai.tool.call.id": callId,
        // The conventions' word for a tool run by another service.
        "gen_ai.tool.type": kind === "mcp" ? "extension" : "function",
        "toolcall.payload_kind": kind,
        "toolcall.exclusive": exclusive,
      },
    });
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
      span.setStatus({ code: STATUS_ERROR, message: outcome.aborted ? "aborted" : "the tool call failed" });
    }
    span.end();
  }
}
