import { generateText, stepCountIs, type ModelMessage } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { aiSdkOutput, aiSdkTools, type FrameworkAnswer } from "../../src/frameworks/aiSdk.js";
import { ALL_CALLS, directOutputs, makeRouter, makeTurn, Observed, PNG, STEPS } from "./fixture.js";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** The scripted model's answer for one step: its tool calls, or a final text. */
function reply(step: (typeof STEPS)[number] | "done") {
  if (step === "done") {
    return {
      content: [{ type: "text" as const, text: "done" }],
      finishReason: { unified: "stop" as const, raw: "stop" },
      usage,
      warnings: [],
    };
  }
  return {
    content: step.map((c) => ({
      type: "tool-call" as const,
      toolCallId: c.callId,
      toolName: c.toolName,
      input: JSON.stringify(c.input),
    })),
    finishReason: { unified: "tool-calls" as const, raw: "tool_calls" },
    usage,
    warnings: [],
  };
}

describe("toolcall-runtime/ai-sdk", () => {
  it("runs a whole generateText loop: one lock per step, call order, an approval, images, errors, an abort", async () => {
    const seen = new Observed();
    const router = makeRouter(seen);
    const turn = makeTurn();
    const tools = aiSdkTools(router, turn);
    // Every call's answer as the AI SDK got it from execute (step 3's never reach the model: aborted).
    const answered = new Map<string, FrameworkAnswer>();
    const experimental_onToolCallFinish = (e: {
      toolCall: { toolCallId: string };
      success: boolean;
      output?: unknown;
    }) => {
      if (e.success) answered.set(e.toolCall.toolCallId, e.output as FrameworkAnswer);
    };
    const model = new MockLanguageModelV3({
      doGenerate: [reply(STEPS[0]!), reply(STEPS[1]!), reply(STEPS[2]!), reply("done")],
    });

    // Steps 1 and 2: the loop stops at deploy's approval request (our policy asks).
    const first = await generateText({
      model,
      tools,
      prompt: "go",
      stopWhen: stepCountIs(10),
      experimental_onToolCallFinish,
    });
    expect(first.steps).toHaveLength(2);
    const approval = first.content.find((p) => p.type === "tool-approval-request");
    expect(approval?.type === "tool-approval-request" && approval.toolCall.toolCallId).toBe("d1");
    // Step 1: the pair overlapped (else the barrier never opens), write ran alone, a3 after it.
    expect(seen.overlapWithExclusive).toBe(0);
    expect(seen.log.indexOf("write:end")).toBeLessThan(seen.log.indexOf("read after:start"));
    expect(seen.log.indexOf("read pair:end")).toBeLessThan(seen.log.indexOf("write:start"));
    // Results come back in call order.
    expect(first.steps[0]!.toolResults.map((r) => r.toolCallId)).toEqual(["a1", "a2", "w1", "a3"]);
    expect(first.steps[1]!.toolResults.map((r) => r.toolCallId)).toEqual(["i1", "f1"]);
    expect(seen.log).not.toContain("deploy:start");

    // The user approves; the AI SDK runs deploy, then step 3, which is aborted while hang runs.
    const controller = new AbortController();
    void seen.hangRunning.then(() => {
      controller.abort();
    });
    const messages: ModelMessage[] = [
      { role: "user", content: "go" },
      ...first.response.messages,
      { role: "tool", content: [{ type: "tool-approval-response", approvalId: approval!.approvalId, approved: true }] },
    ];
    const second = await generateText({
      model,
      tools,
      messages,
      stopWhen: stepCountIs(10),
      abortSignal: controller.signal,
      experimental_onToolCallFinish,
    }).catch((err: unknown) => err);
    expect(seen.log).toContain("deploy:end");

    // What the model read for each call, from the requests the mock saw.
    const sent = new Map<string, unknown>();
    for (const call of model.doGenerateCalls) {
      for (const message of call.prompt) {
        if (message.role !== "tool") continue;
        for (const part of message.content) if (part.type === "tool-result") sent.set(part.toolCallId, part.output);
      }
    }
    // The AI SDK ends a loop whose signal aborted, after the step's calls were all answered.
    expect(second).toBeInstanceOf(Error);
    expect((second as Error).name).toMatch(/Abort/);
    const direct = await directOutputs();
    for (const c of ALL_CALLS)
      expect([c.callId, answered.get(c.callId)?.text]).toEqual([c.callId, direct.get(c.callId)]);
    expect(answered.get("h1")?.aborted).toBe(true);
    await seen.hangAborted;
    expect(answered.get("a5")?.aborted).toBe(true);
    expect(seen.log).not.toContain("read queued:start");
    // What reached the model is the answer's mapping.
    for (const [callId, output] of sent) expect(output).toEqual(aiSdkOutput(answered.get(callId)!));
    expect(sent.get("i1")).toEqual({
      type: "content",
      value: [
        { type: "text", text: "a screenshot" },
        { type: "image-data", data: PNG, mediaType: "image/png" },
      ],
    });
    expect(sent.get("f1")).toEqual({ type: "error-text", value: "tool fail failed: disk full" });
    expect(sent.get("d1")).toEqual({ type: "text", value: "deployed to prod" });
    expect([...sent.keys()].sort()).toEqual(["a1", "a2", "a3", "d1", "f1", "i1", "w1"]);
  });

  it("maps answers to the AI SDK's output parts", () => {
    expect(aiSdkOutput({ callId: "c", text: "t", images: ["https://x/y.png"], success: true, aborted: false })).toEqual(
      {
        type: "content",
        value: [
          { type: "text", text: "t" },
          { type: "image-url", url: "https://x/y.png" },
        ],
      },
    );
  });
});
