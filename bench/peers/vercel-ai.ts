/** Vercel AI SDK: `generateText` with its mock language model emitting the whole batch in one step. */
import { generateText, tool, type ToolSet } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { z } from "zod";
import { ExecutionCounter, peerVersion, type PeerAdapter } from "../lib/peer.js";
import { noop, wait } from "../lib/tools.js";

export const peer: PeerAdapter = {
  id: "vercelAi",
  label: "Vercel AI SDK generateText",
  version: peerVersion("ai"),
  note: "one mock model step; tools run by generateText",
  async prepare({ kind, count, waitMs }) {
    const counter = new ExecutionCounter();
    const tools: ToolSet = {
      noop: tool({
        description: "Does nothing.",
        inputSchema: z.object({ n: z.number().int().min(0) }),
        execute: async (args) => (counter.count++, noop(args)),
      }),
      wait: tool({
        description: "Waits ms milliseconds.",
        inputSchema: z.object({ ms: z.number().int().min(0) }),
        execute: async (args) => (counter.count++, wait(args)),
      }),
    };
    const input = JSON.stringify(kind === "noop" ? { n: 1 } : { ms: waitMs });
    const model = new MockLanguageModelV3({
      doGenerate: async () => ({
        content: Array.from({ length: count }, (_, i) => ({
          type: "tool-call" as const,
          toolCallId: `c${i}`,
          toolName: kind,
          input,
        })),
        finishReason: { unified: "tool-calls" as const, raw: undefined },
        usage: {
          inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 1, text: 1, reasoning: undefined },
        },
        warnings: [],
      }),
    });
    return async () => {
      const result = await generateText({ model, tools, prompt: "run the batch" });
      if (result.toolResults.length !== count) throw new Error(`vercel-ai: ${result.toolResults.length} tool results`);
      counter.expect(count, "vercel-ai");
    };
  },
};
