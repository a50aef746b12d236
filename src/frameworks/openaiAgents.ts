/**
 * `toolcall-runtime/openai-agents`: the router's tools as OpenAI Agents JS `FunctionTool`s
 * (DESIGN section 13, "Framework adapters"). agents-js runs a model message's function calls
 * at once; here they go through one `ToolCallRuntime` (shared lock, call order), and our
 * policy's "ask" becomes the tool's `needsApproval`: the run is interrupted, and a `RunState`
 * approval resumes it.
 */
import { tool, type FunctionTool, type RunContext } from "@openai/agents";
import { dataUrlImage } from "../adapters/index.js";
import { toChatCompletionsTools } from "../protocol/index.js";
import type { ToolRouter } from "../router/index.js";
import type { TurnContext } from "../turn/index.js";
import { asksThroughFramework, FrameworkSteps, type FrameworkAnswer, type FrameworkRuntimeOptions } from "./step.js";

export type { FrameworkAnswer, FrameworkRuntimeOptions } from "./step.js";

export interface OpenAIAgentsToolsOptions extends FrameworkRuntimeOptions {
  /**
   * Who answers our policy's "ask": `"agents"` (default when the turn's permissions have no
   * `approve`) through `needsApproval` and the run's interruptions; `"turn"` leaves it to the
   * turn (its `permissions.approve`, else the no-approver rule).
   */
  approvals?: "agents" | "turn";
}

/** agents-js's JSON Schema parameters type (its `JsonObjectSchema`, not exported by `@openai/agents`). */
export type OpenAIAgentsParameters = Extract<
  NonNullable<Parameters<typeof tool>[0]["parameters"]>,
  { type: "object"; additionalProperties: true }
>;

/** One of the tools: a `FunctionTool` taking plain JSON Schema parameters. */
export type OpenAIAgentsTool = FunctionTool<unknown, OpenAIAgentsParameters>;

/** What a tool returns to agents-js: text, or text and images. */
export type OpenAIAgentsToolOutput =
  | string
  | Array<
      | { type: "text"; text: string }
      | { type: "image"; image: string | { data: string; mediaType: string } | { url: string } }
    >;

/**
 * The router's tools as agents-js `FunctionTool`s (`strict: false`: our schemas are plain JSON
 * Schema). A failed call answers its text, as every function output is text to the model.
 */
export function openAIAgentsTools<Ctx>(
  router: ToolRouter<Ctx>,
  turn: TurnContext,
  opts: OpenAIAgentsToolsOptions = {},
): OpenAIAgentsTool[] {
  const viaAgents = asksThroughFramework(turn, opts.approvals === "turn" ? "turn" : "framework");
  const steps = new FrameworkSteps(router, turn, { ...opts, frameworkApprovals: viaAgents });
  const tools: OpenAIAgentsTool[] = [];
  for (const offered of toChatCompletionsTools(router.specs())) {
    if (offered.type !== "function") continue;
    const { name: toolName, description, parameters } = offered.function;
    tools.push(
      tool({
        name: toolName,
        description,
        parameters: parameters as OpenAIAgentsParameters,
        strict: false,
        // agents-js asks each call of a message at once, before any runs: the step starts here.
        needsApproval: viaAgents
          ? async (_context: RunContext, input: unknown, callId?: string) =>
              callId !== undefined && (await steps.policyGate({ callId, toolName, input })) === "asked"
          : false,
        execute: async (
          input: unknown,
          context?: RunContext,
          details?: { toolCall?: { callId: string }; signal?: AbortSignal },
        ) => {
          const callId = details?.toolCall?.callId ?? `call_${toolName}`;
          // Resumed from an interruption the user approved: our policy's ask is answered allow.
          const approved = context?.isToolApproved({ toolName, callId }) === true;
          return openAIAgentsOutput(await steps.answer({ callId, toolName, input }, details?.signal, approved));
        },
      }),
    );
  }
  return tools;
}

/** A call's answer as agents-js tool output: the text, with image parts when there are images. */
export function openAIAgentsOutput(answer: FrameworkAnswer): OpenAIAgentsToolOutput {
  if (answer.images.length === 0) return answer.text;
  return [
    ...(answer.text === "" ? [] : [{ type: "text" as const, text: answer.text }]),
    ...answer.images.map((url) => ({ type: "image" as const, image: dataUrlImage(url) ?? { url } })),
  ];
}
