import {
  Agent,
  run,
  setTracingDisabled,
  Usage,
  type Model,
  type ModelRequest,
  type ModelResponse,
} from "@openai/agents";
import { describe, expect, it } from "vitest";
import {
  openAIAgentsOutput,
  openAIAgentsTools,
  type OpenAIAgentsToolOutput,
} from "../../src/frameworks/openaiAgents.js";
import { ALL_CALLS, directOutputs, makeRouter, makeTurn, Observed, PNG, STEPS } from "./fixture.js";

/** A scripted agents-js `Model`: one answer per request, and what each request carried. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  private next = 0;
  constructor(private readonly answers: Array<(typeof STEPS)[number] | "done">) {}

  getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const answer = this.answers[this.next++] ?? "done";
    const output: ModelResponse["output"] =
      answer === "done"
        ? [
            {
              type: "message",
              role: "assistant",
              status: "completed",
              content: [{ type: "output_text", text: "done" }],
            },
          ]
        : answer.map((c) => ({
            type: "function_call" as const,
            callId: c.callId,
            name: c.toolName,
            arguments: JSON.stringify(c.input),
            status: "completed" as const,
          }));
    return Promise.resolve({ usage: new Usage(), output, responseId: `r${String(this.next)}` });
  }

  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("not scripted");
  }
}

function textOf(output: OpenAIAgentsToolOutput): string {
  return typeof output === "string"
    ? output
    : output
        .filter((p) => p.type === "text")
        .map((p) => p.text)
        .join("\n");
}

setTracingDisabled(true);

describe("toolcall-runtime/openai-agents", () => {
  it("runs a whole agents-js loop: one lock per step, an interruption approved through RunState, images, an abort", async () => {
    const seen = new Observed();
    const controller = new AbortController();
    const tools = openAIAgentsTools(makeRouter(seen), makeTurn(), { signal: controller.signal });
    // What each tool call returned to agents-js.
    const answered = new Map<string, OpenAIAgentsToolOutput>();
    for (const t of tools) {
      const invoke = t.invoke.bind(t);
      t.invoke = async (context, input, details) => {
        const out = (await invoke(context, input, details)) as OpenAIAgentsToolOutput;
        if (details?.toolCall) answered.set(details.toolCall.callId, out);
        return out;
      };
    }
    const model = new ScriptedModel([STEPS[0]!, STEPS[1]!, STEPS[2]!, "done"]);
    const agent = new Agent({ name: "coder", instructions: "use the tools", model, tools });

    const first = await run(agent, "go");
    expect(first.interruptions.map((i) => i.rawItem.type === "function_call" && i.rawItem.callId)).toEqual(["d1"]);
    expect(seen.overlapWithExclusive).toBe(0);
    expect(seen.log.indexOf("write:end")).toBeLessThan(seen.log.indexOf("read after:start"));
    expect(seen.log.indexOf("read pair:end")).toBeLessThan(seen.log.indexOf("write:start"));
    expect(seen.log).not.toContain("deploy:start");

    first.state.approve(first.interruptions[0]!);
    void seen.hangRunning.then(() => {
      controller.abort();
    });
    const second = await run(agent, first.state, { signal: controller.signal }).catch((err: unknown) => err);
    expect(seen.log).toContain("deploy:end");
    expect(second).toBeInstanceOf(Error);

    // agents-js ends an aborted run without taking the step's remaining results: the abort
    // reached the running call (its signal) and the queued one never started.
    await seen.hangAborted;
    expect(seen.log).not.toContain("read queued:start");
    const direct = await directOutputs();
    expect([...answered.keys()]).toEqual(expect.arrayContaining(["a1", "a2", "w1", "a3", "i1", "f1", "d1"]));
    for (const c of ALL_CALLS.filter((c) => answered.has(c.callId))) {
      expect([c.callId, textOf(answered.get(c.callId)!)]).toEqual([c.callId, direct.get(c.callId)]);
    }
    expect(answered.get("i1")).toEqual([
      { type: "text", text: "a screenshot" },
      { type: "image", image: { data: PNG, mediaType: "image/png" } },
    ]);
    expect(seen.log).not.toContain("read queued:start");
    // The model read step 1's outputs in call order.
    const outputs = model.requests[1]!.input;
    const order = (Array.isArray(outputs) ? outputs : [])
      .filter((i) => i.type === "function_call_result")
      .map((i) => (i as { callId: string }).callId);
    expect(order).toEqual(["a1", "a2", "w1", "a3"]);
  });

  it("answers an image URL as an image part", () => {
    expect(
      openAIAgentsOutput({ callId: "c", text: "", images: ["https://x/y.png"], success: true, aborted: false }),
    ).toEqual([{ type: "image", image: { url: "https://x/y.png" } }]);
  });
});
