/**
 * `toolcall-runtime/langchain`: the router's tools as LangChain.js `StructuredTool`s, and a
 * LangGraph.js node that replaces `ToolNode` (DESIGN section 13, "Framework adapters"). The
 * node runs an AI message's tool calls through one `ToolCallRuntime` (shared lock, call order);
 * the tools group the calls a stock `ToolNode` hands them the same way. LangChain tools have no
 * approval hook: our policy's "ask" goes to the turn (`permissions.approve`, else the
 * no-approver rule).
 */
import { ToolMessage, type BaseMessage, type MessageContent } from "@langchain/core/messages";
import { tool, type DynamicStructuredTool } from "@langchain/core/tools";
import type { RunnableConfig } from "@langchain/core/runnables";
import { toChatCompletionsTools } from "../protocol/index.js";
import type { ToolRouter } from "../router/index.js";
import type { TurnContext } from "../turn/index.js";
import { FrameworkStep, FrameworkSteps, type FrameworkAnswer, type FrameworkRuntimeOptions } from "./step.js";

export type { FrameworkRuntimeOptions } from "./step.js";

/** The router's tools as LangChain `StructuredTool`s; invoked with a tool call, each answers a `ToolMessage`. */
export function langchainTools<Ctx>(
  router: ToolRouter<Ctx>,
  turn: TurnContext,
  opts: FrameworkRuntimeOptions = {},
): DynamicStructuredTool[] {
  const steps = new FrameworkSteps(router, turn, opts);
  const tools: DynamicStructuredTool[] = [];
  for (const offered of toChatCompletionsTools(router.specs())) {
    if (offered.type !== "function") continue;
    const { name: toolName, description, parameters } = offered.function;
    tools.push(
      tool(
        async (input: unknown, config: RunnableConfig & { toolCall?: { id?: string } }) => {
          const callId = config.toolCall?.id ?? `call_${toolName}`;
          return langchainMessage(toolName, await steps.answer({ callId, toolName, input }, config.signal, false));
        },
        { name: toolName, description, schema: parameters },
      ) as DynamicStructuredTool,
    );
  }
  return tools;
}

/** The LangGraph state a tool node reads: the conversation, the last message the model's. */
export interface MessagesState {
  messages: BaseMessage[];
}

/**
 * A LangGraph node in place of `ToolNode`: the last AI message's tool calls run through one
 * `ToolCallRuntime`, and their `ToolMessage`s come back in call order.
 */
export function toolcallToolNode<Ctx>(
  router: ToolRouter<Ctx>,
  turn: TurnContext,
  opts: FrameworkRuntimeOptions = {},
): (state: MessagesState, config?: RunnableConfig) => Promise<{ messages: ToolMessage[] }> {
  return async (state, config) => {
    const last = state.messages.at(-1);
    const calls =
      last && "tool_calls" in last && Array.isArray(last.tool_calls) ? (last.tool_calls as ToolCallLike[]) : [];
    const step = new FrameworkStep(router, turn, { ...opts, callSignal: config?.signal });
    const answers = calls.map((c, i) => {
      const call = { callId: c.id ?? `call_${String(i)}`, toolName: c.name, input: c.args };
      return step.answer(call).then((answer) => langchainMessage(c.name, answer));
    });
    return { messages: await Promise.all(answers) };
  };
}

interface ToolCallLike {
  id?: string;
  name: string;
  args: unknown;
}

/** A call's answer as a `ToolMessage`: images as `image_url` parts, failures with status "error". */
function langchainMessage(toolName: string, answer: FrameworkAnswer): ToolMessage {
  const content: MessageContent =
    answer.images.length === 0
      ? answer.text
      : [
          ...(answer.text === "" ? [] : [{ type: "text" as const, text: answer.text }]),
          ...answer.images.map((url) => ({ type: "image_url" as const, image_url: { url } })),
        ];
  return new ToolMessage({
    content,
    tool_call_id: answer.callId,
    name: toolName,
    status: answer.success ? "success" : "error",
  });
}
