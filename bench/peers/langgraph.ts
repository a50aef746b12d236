/** LangGraph: the prebuilt `ToolNode` invoked on an AI message carrying the whole batch. */
import { AIMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { z } from "zod";
import { ExecutionCounter, peerVersion, type PeerAdapter } from "../lib/peer.js";
import { noop, wait } from "../lib/tools.js";

export const peer: PeerAdapter = {
  id: "langgraph",
  label: "LangGraph ToolNode",
  version: `${peerVersion("@langchain/langgraph")}, ${peerVersion("@langchain/core")}`,
  note: "no model; arguments JSON-parsed in the timed region like the others",
  async prepare({ kind, count, waitMs }) {
    const counter = new ExecutionCounter();
    const tools = [
      tool(async (args: { n: number }) => (counter.count++, noop(args)), {
        name: "noop",
        description: "Does nothing.",
        schema: z.object({ n: z.number().int().min(0) }),
      }),
      tool(async (args: { ms: number }) => (counter.count++, wait(args)), {
        name: "wait",
        description: "Waits ms milliseconds.",
        schema: z.object({ ms: z.number().int().min(0) }),
      }),
    ];
    const node = new ToolNode(tools);
    const raw = JSON.stringify(kind === "noop" ? { n: 1 } : { ms: waitMs });
    return async () => {
      const message = new AIMessage({
        content: "",
        tool_calls: Array.from({ length: count }, (_, i) => ({
          id: `c${i}`,
          name: kind,
          args: JSON.parse(raw) as Record<string, number>,
          type: "tool_call" as const,
        })),
      });
      const result = (await node.invoke({ messages: [message] })) as { messages: unknown[] };
      if (result.messages.length !== count) throw new Error(`langgraph: ${result.messages.length} tool messages`);
      counter.expect(count, "langgraph");
    };
  },
};
