/** OpenAI Agents SDK: `Runner.run` with a scripted model that emits the batch, then a final message. */
import { Agent, Runner, Usage, tool, type Model, type ModelRequest, type ModelResponse } from "@openai/agents";
import { z } from "zod";
import { ExecutionCounter, peerVersion, type PeerAdapter } from "../lib/peer.js";
import { noop, wait } from "../lib/tools.js";

/** First turn: the batch of function calls; once their results are in the input: a final message. */
class ScriptedModel implements Model {
  constructor(
    private readonly name: string,
    private readonly count: number,
    private readonly args: string,
  ) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const input = Array.isArray(request.input) ? request.input : [];
    const answered = input.some((item) => (item as { type?: string }).type === "function_call_result");
    if (answered) {
      return {
        usage: new Usage(),
        output: [
          { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "done" }] },
        ],
      };
    }
    return {
      usage: new Usage(),
      output: Array.from({ length: this.count }, (_, i) => ({
        type: "function_call" as const,
        callId: `c${i}`,
        name: this.name,
        arguments: this.args,
        status: "completed" as const,
      })),
    };
  }

  getStreamedResponse(): AsyncIterable<never> {
    throw new Error("the benchmark does not stream");
  }
}

export const peer: PeerAdapter = {
  id: "openaiAgents",
  label: "OpenAI Agents SDK Runner",
  version: `${peerVersion("@openai/agents")}, ${peerVersion("openai")}`,
  note: "two scripted model turns (calls, then final message); tracing disabled",
  async prepare({ kind, count, waitMs }) {
    const counter = new ExecutionCounter();
    const tools = [
      tool({
        name: "noop",
        description: "Does nothing.",
        parameters: z.object({ n: z.number().int().min(0) }),
        execute: async (args) => (counter.count++, noop(args)),
      }),
      tool({
        name: "wait",
        description: "Waits ms milliseconds.",
        parameters: z.object({ ms: z.number().int().min(0) }),
        execute: async (args) => (counter.count++, wait(args)),
      }),
    ];
    const model = new ScriptedModel(kind, count, JSON.stringify(kind === "noop" ? { n: 1 } : { ms: waitMs }));
    const agent = new Agent({ name: "bench", instructions: "Run the batch.", tools, model });
    const runner = new Runner({ tracingDisabled: true });
    return async () => {
      const result = await runner.run(agent, "run the batch", { maxTurns: 3 });
      if (result.finalOutput !== "done") throw new Error(`openai-agents: final output ${String(result.finalOutput)}`);
      counter.expect(count, "openai-agents");
    };
  },
};
