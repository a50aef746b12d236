import { describe, expect, it } from "vitest";
import { dynamicToolsFactory } from "../../../src/handlers/dynamic/handler.js";
import type { DynamicToolSpec, ToolEvent, ToolsConfig } from "../../../src/index.js";
import { FileReadLedger } from "../../../src/subpaths/handlers.js";
import { ReadinessFlag } from "../../../src/index.js";
import { functionCall, runtimeOf } from "../toolHarness.js";

const lookup: DynamicToolSpec = {
  name: "lookup_ticket",
  description: "Looks a ticket up in the tracker",
  inputSchema: {
    type: "object",
    properties: { id: { type: "string" } },
    required: ["id"],
    additionalProperties: false,
  },
};
const toolsFor = (config: ToolsConfig = {}, dynamicTools = [lookup]) =>
  dynamicToolsFactory(config, { dynamicTools, fileReads: new FileReadLedger() });
const requests = (events: ToolEvent[]) => events.filter((e) => e.type === "dynamic_tool_call_request");
const tick = () => new Promise<void>((r) => setImmediate(r));

describe("dynamic tools", () => {
  it("emits a request and answers with the embedder's content items", async () => {
    const { runtime, events } = runtimeOf(toolsFor());
    runtime.submit(functionCall("lookup_ticket", { id: "T-1" }, "d1"));
    while (requests(events).length === 0) await tick();
    expect(requests(events)).toEqual([
      { type: "dynamic_tool_call_request", callId: "d1", toolName: "lookup_ticket", arguments: { id: "T-1" } },
    ]);
    expect(
      runtime.respondToDynamicToolCall("d1", {
        success: true,
        contentItems: [{ type: "input_text", text: "open, P1" }],
      }),
    ).toBe(true);
    const [outcome] = await runtime.drainOutcomes();
    expect(outcome!.success).toBe(true);
    expect(outcome!.item).toEqual({
      type: "function_call_output",
      call_id: "d1",
      output: [{ type: "input_text", text: "open, P1" }],
    });
    expect(runtime.respondToDynamicToolCall("d1", { success: true, contentItems: [] })).toBe(false);
  });

  it("hears an answer given from inside the event listener, and passes success: false on", async () => {
    let respond: (callId: string) => void = () => {};
    const { runtime } = runtimeOf(toolsFor(), {
      onEvent: (e) => {
        if (e.type === "dynamic_tool_call_request") respond(e.callId);
      },
    });
    respond = (callId) =>
      runtime.respondToDynamicToolCall(callId, {
        success: false,
        contentItems: [{ type: "input_text", text: "no such ticket" }],
      });
    runtime.submit(functionCall("lookup_ticket", { id: "T-404" }, "d2"));
    const [outcome] = await runtime.drainOutcomes();
    expect(outcome!.success).toBe(false);
    expect(outcome!.item).toMatchObject({ output: [{ type: "input_text", text: "no such ticket" }] });
  });

  it("ends the wait with a clear output after the timeout", async () => {
    const { runtime } = runtimeOf(toolsFor({ dynamicToolTimeoutMs: 150 }));
    runtime.submit(functionCall("lookup_ticket", { id: "T-2" }, "d3"));
    const [outcome] = await runtime.drainOutcomes();
    expect(outcome!.success).toBe(false);
    expect(outcome!.item).toMatchObject({ output: "dynamic tool lookup_ticket got no response within 0.15s" });
    expect(runtime.respondToDynamicToolCall("d3", { success: true, contentItems: [] })).toBe(false);
  });

  it("ends the wait on abort", async () => {
    const { runtime, events } = runtimeOf(toolsFor());
    runtime.submit(functionCall("lookup_ticket", { id: "T-3" }, "d4"));
    while (requests(events).length === 0) await tick();
    runtime.abort();
    const [outcome] = await runtime.drainOutcomes();
    expect(outcome!.aborted).toBe(true);
    expect(outcome!.item).toMatchObject({ output: expect.stringMatching(/^aborted by user after \d+\.\ds$/) });
    expect(runtime.respondToDynamicToolCall("d4", { success: true, contentItems: [] })).toBe(false);
  });

  it("is mutating: the request waits for the turn's gate", async () => {
    const gate = new ReadinessFlag();
    const token = gate.subscribe();
    const { runtime, events } = runtimeOf(toolsFor(), { toolCallGate: gate });
    runtime.submit(functionCall("lookup_ticket", { id: "T-5" }, "d5"));
    for (let i = 0; i < 20; i++) await tick();
    expect(requests(events)).toEqual([]);
    gate.markReady(token);
    while (requests(events).length === 0) await tick();
    runtime.respondToDynamicToolCall("d5", { success: true, contentItems: [] });
    expect((await runtime.drainOutcomes())[0]!.success).toBe(true);
  });

  it("validates arguments against the embedder's schema", async () => {
    const { runtime, events } = runtimeOf(toolsFor());
    runtime.submit(functionCall("lookup_ticket", { ticket: 1 }, "d6"));
    const [outcome] = await runtime.drainOutcomes();
    expect(outcome!.item).toMatchObject({
      output:
        "invalid arguments for lookup_ticket: / must have required property 'id'; /ticket is not an allowed property",
    });
    expect(requests(events)).toEqual([]);
  });

  it("registers one exclusive function tool per spec and rejects bad specs and timeouts", () => {
    const regs = toolsFor({}, [lookup, { ...lookup, name: "other" }]);
    expect(regs.map((r) => [r.spec, r.supportsParallel])).toEqual([
      [
        {
          type: "function",
          name: "lookup_ticket",
          description: lookup.description,
          parameters: lookup.inputSchema,
          strict: false,
        },
        false,
      ],
      [
        {
          type: "function",
          name: "other",
          description: lookup.description,
          parameters: lookup.inputSchema,
          strict: false,
        },
        false,
      ],
    ]);
    expect(toolsFor({}, [])).toEqual([]);
    expect(() => toolsFor({}, [{ ...lookup, name: "has space" }])).toThrow(
      'invalid dynamic tool name "has space": expected 1-64 characters of [a-zA-Z0-9_-]',
    );
    expect(() => toolsFor({ dynamicToolTimeoutMs: 0 })).toThrow(
      "dynamicToolTimeoutMs must be a positive integer, got 0",
    );
  });
});
