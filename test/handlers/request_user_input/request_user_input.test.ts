import { describe, expect, it } from "vitest";
import { createToolRouter, createTurnContext, specName, ToolCallRuntime, type ToolEvent } from "../../../src/index.js";
import { DB_QUESTION as QUESTION } from "../../fixtures/userInput.js";
import { functionCall } from "../toolHarness.js";

/** A runtime over `request_user_input`; `answer` plays the person, from inside onEvent. */
async function setup(answer?: (e: Extract<ToolEvent, { type: "user_input_request" }>, rt: ToolCallRuntime) => void) {
  const router = await createToolRouter({ requestUserInput: true, userInputTimeoutMs: 200, applyPatch: false });
  const events: ToolEvent[] = [];
  const turn = createTurnContext({
    onEvent: (e) => {
      events.push(e);
      if (e.type === "user_input_request") answer?.(e, runtime);
    },
  });
  const runtime: ToolCallRuntime = new ToolCallRuntime(router, turn);
  return { runtime, events, router };
}

const outputOf = (item: unknown): unknown => (item as { output: unknown }).output;

describe("request_user_input", () => {
  it("is offered only when ToolsConfig.requestUserInput is true", async () => {
    const names = async (requestUserInput?: boolean) =>
      (await createToolRouter(requestUserInput === undefined ? {} : { requestUserInput }))
        .specs()
        .map((s) => specName(s.spec));
    expect(await names()).not.toContain("request_user_input");
    expect(await names(false)).not.toContain("request_user_input");
    expect(await names(true)).toContain("request_user_input");
    await expect(createToolRouter({ requestUserInput: true, userInputTimeoutMs: 0 })).rejects.toThrow(
      "userInputTimeoutMs must be a positive integer, got 0",
    );
  });

  it("asks the embedder with isOther set, and gives the model Codex's JSON of the answers", async () => {
    const { runtime, events } = await setup((e, rt) => {
      expect(
        rt.respondToUserInput(e.callId, { answers: { pick_db: { answers: ["SQLite", "user_note: small"] } } }),
      ).toBe(true);
    });
    runtime.submit(functionCall("request_user_input", { questions: [QUESTION] }, "q1"));
    const [outcome] = await runtime.drainOutcomes();
    expect(outcome?.success).toBe(true);
    expect(outputOf(outcome?.item)).toBe('{"answers":{"pick_db":{"answers":["SQLite","user_note: small"]}}}');
    expect(events.find((e) => e.type === "user_input_request")).toEqual({
      type: "user_input_request",
      callId: "q1",
      toolName: "request_user_input",
      questions: [{ ...QUESTION, isOther: true }],
    });
    // Answered once: a second answer finds nobody waiting.
    expect(runtime.respondToUserInput("q1", { answers: {} })).toBe(false);
  });

  it("answers Codex's texts when the person dismisses the questions or a question has no options", async () => {
    const { runtime, events } = await setup((e, rt) => rt.respondToUserInput(e.callId, null));
    runtime.submit(functionCall("request_user_input", { questions: [QUESTION] }, "q1"));
    runtime.submit(functionCall("request_user_input", { questions: [{ ...QUESTION, options: [] }] }, "q2"));
    const [dismissed, empty] = await runtime.drainOutcomes();
    expect(dismissed?.success).toBe(false);
    expect(outputOf(dismissed?.item)).toBe("request_user_input was cancelled before receiving a response");
    expect(outputOf(empty?.item)).toBe("request_user_input requires non-empty options for every question");
    // The question without options never reached the person.
    expect(events.filter((e) => e.type === "user_input_request").map((e) => e.callId)).toEqual(["q1"]);
  });

  it("gives up after userInputTimeoutMs, and a late answer finds nobody waiting", async () => {
    const { runtime } = await setup();
    runtime.submit(functionCall("request_user_input", { questions: [QUESTION] }, "q1"));
    const [outcome] = await runtime.drainOutcomes();
    expect(outputOf(outcome?.item)).toBe("request_user_input got no response within 0.2s");
    expect(runtime.respondToUserInput("q1", { answers: { pick_db: { answers: ["SQLite"] } } })).toBe(false);
  });

  it("is answered as aborted when the turn is aborted while it waits", async () => {
    let asked!: () => void;
    const waiting = new Promise<void>((resolve) => (asked = resolve));
    const { runtime } = await setup(() => {
      asked();
    });
    runtime.submit(functionCall("request_user_input", { questions: [QUESTION] }, "q1"));
    await waiting;
    runtime.abort();
    const [outcome] = await runtime.drainOutcomes();
    expect(outcome?.aborted).toBe(true);
    expect(outputOf(outcome?.item)).toMatch(/^aborted by user after \d+\.\ds$/);
    expect(runtime.respondToUserInput("q1", { answers: {} })).toBe(false);
  });

  it("refuses a malformed answer with a TypeError naming the field, and the call keeps waiting", async () => {
    const { runtime } = await setup((e, rt) => {
      expect(() => rt.respondToUserInput(e.callId, { answers: { pick_db: { answers: "SQLite" } } } as never)).toThrow(
        'respondToUserInput: answers["pick_db"].answers must be an array of strings',
      );
      expect(() => rt.respondToUserInput(e.callId, {} as never)).toThrow(
        "respondToUserInput: response.answers must be an object keyed by question id",
      );
      rt.respondToUserInput(e.callId, { answers: { pick_db: { answers: ["Postgres (Recommended)"] } } });
    });
    runtime.submit(functionCall("request_user_input", { questions: [QUESTION] }, "q1"));
    const [outcome] = await runtime.drainOutcomes();
    expect(outputOf(outcome?.item)).toBe('{"answers":{"pick_db":{"answers":["Postgres (Recommended)"]}}}');
  });

  it("checks its arguments against Codex's schema", async () => {
    const { runtime } = await setup();
    runtime.submit(functionCall("request_user_input", { questions: [{ id: "x", header: "h", question: "q?" }] }, "q1"));
    const [outcome] = await runtime.drainOutcomes();
    expect(outputOf(outcome?.item)).toBe(
      "invalid arguments for request_user_input: /questions/0 must have required property 'options'",
    );
  });
});
