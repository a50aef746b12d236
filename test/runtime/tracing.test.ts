import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { PermissionEngine } from "../../src/index.js";
import { ControlledHandler, fc, makeRuntime, Observer, waitFor } from "../support/harness.js";

function register(): InMemorySpanExporter {
  const exporter = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  return exporter;
}

afterEach(() => {
  trace.disable();
  context.disable();
});

describe("OpenTelemetry: one span per call (DESIGN section 13)", () => {
  it("names each span execute_tool {tool} with the GenAI attributes, timing and outcome", async () => {
    const exporter = register();
    const obs = new Observer();
    const tool = new ControlledHandler(obs, { honourSignal: true });
    const { runtime } = makeRuntime([{ name: "lookup", handler: tool, parallel: true }]);
    runtime.submit(fc("c1", "lookup"));
    runtime.submit(fc("c2", "lookup"));
    runtime.submit(fc("c3", "lookup", "{not json"));
    await waitFor(() => obs.active.size === 2, "both calls to run");
    tool.release("c1");
    expect(runtime.cancel("c2")).toBe(true);
    await runtime.drain();

    const spans = exporter.getFinishedSpans();
    // One span per call, ended when its call is answered.
    expect(spans.map((s) => [s.name, s.attributes["gen_ai.tool.call.id"]]).sort()).toEqual([
      ["execute_tool lookup", "c1"],
      ["execute_tool lookup", "c2"],
      ["execute_tool lookup", "c3"],
    ]);
    const byId = new Map(spans.map((s) => [s.attributes["gen_ai.tool.call.id"], s]));
    expect(byId.get("c1")?.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "lookup",
      "gen_ai.tool.type": "function",
      "toolcall.exclusive": false,
      "toolcall.success": true,
      "toolcall.aborted": false,
      "toolcall.queued_ms": expect.any(Number),
      "toolcall.lock_wait_ms": expect.any(Number),
      "toolcall.gate_wait_ms": 0,
      "toolcall.handler_ms": expect.any(Number),
    });
    expect(byId.get("c1")?.status.code).toBe(0); // UNSET
    expect(byId.get("c2")?.attributes).toMatchObject({ "toolcall.aborted": true, "error.type": "aborted" });
    expect(byId.get("c2")?.status).toEqual({ code: 2, message: "aborted" });
    expect(byId.get("c3")?.attributes).toMatchObject({ "toolcall.success": false, "error.type": "tool_error" });
  });

  it("records the approval decision and who made it", async () => {
    const exporter = register();
    const obs = new Observer();
    const tool = new ControlledHandler(obs, { mutating: true });
    const { runtime } = makeRuntime([{ name: "write", handler: tool }], {
      turn: {
        permissions: new PermissionEngine({ ask: ["write"] }),
        onEvent: (e) => {
          if (e.type === "approval_request") runtime.respondToApproval(e.callId, { decision: "deny" });
        },
      },
    });
    runtime.submit(fc("w1", "write"));
    await runtime.drain();
    expect(exporter.getFinishedSpans()[0]?.attributes).toMatchObject({
      "gen_ai.tool.call.id": "w1",
      "toolcall.approval.decision": "deny",
      "toolcall.approval.decided_by": "user",
      "toolcall.success": false,
    });
  });

  it("a call's span is a child of the span active where it was submitted", async () => {
    const exporter = register();
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const obs = new Observer();
    const tool = new ControlledHandler(obs);
    const { runtime } = makeRuntime([{ name: "t", handler: tool, parallel: true }]);
    const agentTurn = trace.getTracer("agent").startSpan("agent turn");
    context.with(trace.setSpan(context.active(), agentTurn), () => runtime.submit(fc("a", "t")));
    runtime.submit(fc("b", "t")); // outside: a root span
    tool.release("a");
    tool.release("b");
    await runtime.drain();
    agentTurn.end();
    const byId = new Map(exporter.getFinishedSpans().map((s) => [s.attributes["gen_ai.tool.call.id"], s]));
    expect(byId.get("a")?.parentSpanContext?.spanId).toBe(agentTurn.spanContext().spanId);
    expect(byId.get("a")?.spanContext().traceId).toBe(agentTurn.spanContext().traceId);
    expect(byId.get("b")?.parentSpanContext).toBeUndefined();
  });

  it("creates nothing without a registered provider", async () => {
    const exporter = new InMemorySpanExporter();
    // A provider that exists but is not registered is not used.
    expect(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })).toBeDefined();
    const obs = new Observer();
    const tool = new ControlledHandler(obs);
    const { runtime } = makeRuntime([{ name: "t", handler: tool, parallel: true }]);
    runtime.submit(fc("a", "t"));
    tool.release("a");
    expect(await runtime.drain()).toHaveLength(1);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
