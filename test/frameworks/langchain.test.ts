import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { describe, expect, it } from "vitest";
import { PermissionEngine, type ApprovalRequest } from "../../src/index.js";
import { langchainTools, toolcallToolNode } from "../../src/frameworks/langchain.js";
import { ALL_CALLS, directOutputs, makeRouter, makeTurn, Observed, PNG, STEPS } from "./fixture.js";

function textOf(m: ToolMessage): string {
  return typeof m.content === "string"
    ? m.content
    : m.content
        .filter((p) => p.type === "text")
        .map((p) => (p as { text: string }).text)
        .join("\n");
}

const aiMessage = (step: (typeof STEPS)[number]) =>
  new AIMessage({
    content: "",
    tool_calls: step.map((c) => ({ id: c.callId, name: c.toolName, args: c.input, type: "tool_call" as const })),
  });

describe("toolcall-runtime/langchain", () => {
  it("runs a whole LangGraph loop through toolcallToolNode: one lock per step, call order, an approval, images, errors, an abort", async () => {
    const seen = new Observed();
    const asked: ApprovalRequest[] = [];
    const turn = makeTurn({
      permissions: new PermissionEngine({
        mode: "bypass",
        ask: ["deploy"],
        approve: (req) => {
          asked.push(req);
          return Promise.resolve({ decision: "allow" });
        },
      }),
    });
    let next = 0;
    const graph = new StateGraph(MessagesAnnotation)
      // The scripted model: one AI message per turn of the loop, then a final answer.
      .addNode("agent", () => ({ messages: [STEPS[next] ? aiMessage(STEPS[next++]!) : new AIMessage("done")] }))
      .addNode("tools", toolcallToolNode(makeRouter(seen), turn))
      .addEdge(START, "agent")
      .addConditionalEdges("agent", (state) => {
        const last = state.messages.at(-1) as AIMessage;
        return (last.tool_calls?.length ?? 0) > 0 ? "tools" : END;
      })
      .addEdge("tools", "agent")
      .compile();

    const controller = new AbortController();
    void seen.hangRunning.then(() => {
      controller.abort();
    });
    const messages: BaseMessage[] = [];
    const run = await graph.stream(
      { messages: [{ role: "user", content: "go" }] },
      { signal: controller.signal, streamMode: "updates" },
    );
    const ended = await (async () => {
      for await (const update of run) {
        const tools = (update as { tools?: { messages: BaseMessage[] } }).tools;
        if (tools) messages.push(...tools.messages);
      }
    })().catch((err: unknown) => err);
    // LangGraph ends an aborted run; the step's calls were answered first.
    expect(ended).toBeInstanceOf(Error);
    await seen.hangAborted;

    expect(seen.overlapWithExclusive).toBe(0);
    expect(seen.log.indexOf("write:end")).toBeLessThan(seen.log.indexOf("read after:start"));
    expect(seen.log.indexOf("read pair:end")).toBeLessThan(seen.log.indexOf("write:start"));
    expect(asked.map((r) => r.callId)).toEqual(["d1"]);
    const toolMessages = messages.filter((m): m is ToolMessage => m instanceof ToolMessage);
    // Steps 1 and 2 reached the graph, in call order.
    expect(toolMessages.map((m) => m.tool_call_id)).toEqual(["a1", "a2", "w1", "a3", "i1", "d1", "f1"]);
    const direct = await directOutputs();
    for (const m of toolMessages)
      expect([m.tool_call_id, textOf(m)]).toEqual([m.tool_call_id, direct.get(m.tool_call_id)]);
    const image = toolMessages.find((m) => m.tool_call_id === "i1")!;
    expect(image.content).toEqual([
      { type: "text", text: "a screenshot" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
    ]);
    expect(toolMessages.find((m) => m.tool_call_id === "f1")!.status).toBe("error");
    expect(seen.log).not.toContain("read queued:start");
    expect(ALL_CALLS).toHaveLength(10);
  });

  it("serves LangGraph's own ToolNode: a message's calls still share one lock", async () => {
    const seen = new Observed();
    const node = new ToolNode(langchainTools(makeRouter(seen), makeTurn()));
    const out = (await node.invoke({ messages: [aiMessage(STEPS[0]!)] })) as { messages: ToolMessage[] };
    expect(out.messages.map((m) => [m.tool_call_id, m.content])).toEqual([
      ["a1", "read pair"],
      ["a2", "read pair"],
      ["w1", "written"],
      ["a3", "read after"],
    ]);
    expect(seen.overlapWithExclusive).toBe(0);
    expect(seen.log.indexOf("write:end")).toBeLessThan(seen.log.indexOf("read after:start"));
    expect(seen.log.indexOf("read pair:end")).toBeLessThan(seen.log.indexOf("write:start"));
  });
});
