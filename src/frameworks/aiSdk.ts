/**
 * `toolcall-runtime/ai-sdk`: the router's tools as a Vercel AI SDK `ToolSet` (DESIGN section
 * 13, "Framework adapters"). The AI SDK calls each tool's `execute` on its own; here the calls
 * of one step (one model message) go through one `ToolCallRuntime`, so they share the lock and
 * keep call order, and our policy's "ask" becomes the AI SDK's tool-approval parts.
 */
import { jsonSchema, tool, type JSONSchema7, type ModelMessage, type Tool, type ToolSet } from "ai";
import { dataUrlImage } from "../adapters/index.js";
import { toChatCompletionsTools } from "../protocol/index.js";
import type { ToolRouter } from "../router/index.js";
import type { TurnContext } from "../turn/index.js";
import {
  asksThroughFramework,
  FrameworkStep,
  type FrameworkAnswer,
  type FrameworkCall,
  type FrameworkRuntimeOptions,
} from "./step.js";

export type { FrameworkAnswer, FrameworkRuntimeOptions } from "./step.js";

/** The AI SDK's tool-result output (its `ToolResultOutput`, which `ai` does not re-export). */
export type AiSdkToolOutput = Awaited<ReturnType<NonNullable<Tool<unknown, FrameworkAnswer>["toModelOutput"]>>>;

export interface AiSdkToolsOptions extends FrameworkRuntimeOptions {
  /**
   * Who answers our policy's "ask": `"ai-sdk"` (default when the turn's permissions have no
   * `approve`) through the AI SDK's `needsApproval` and tool-approval parts; `"turn"` leaves it
   * to the turn (its `permissions.approve`, else the no-approver rule).
   */
  approvals?: "ai-sdk" | "turn";
}

/**
 * The router's tools as an AI SDK `ToolSet` for `generateText` / `streamText` / agents. Each
 * tool's result is a `FrameworkAnswer`; its model output is text, `content` with the images, or
 * `error-text` when the call failed.
 */
export function aiSdkTools<Ctx>(router: ToolRouter<Ctx>, turn: TurnContext, opts: AiSdkToolsOptions = {}): ToolSet {
  const viaAiSdk = asksThroughFramework(turn, opts.approvals === "turn" ? "turn" : "framework");
  // The AI SDK hands every callback of one step the same messages array: it names the step.
  const steps = new WeakMap<object, FrameworkStep<Ctx>>();
  const stepOf = (messages: ModelMessage[], signal: AbortSignal | undefined): FrameworkStep<Ctx> => {
    let step = steps.get(messages);
    if (!step) {
      step = new FrameworkStep(router, turn, {
        ...opts,
        callSignal: signal,
        frameworkApprovals: viaAiSdk,
        approved: approvedCallIds(messages),
      });
      steps.set(messages, step);
    } else step.follow(signal);
    return step;
  };

  const tools: ToolSet = {};
  for (const offered of toChatCompletionsTools(router.specs())) {
    if (offered.type !== "function") continue;
    const fn = offered.function;
    const toolName = fn.name;
    const call = (input: unknown, toolCallId: string): FrameworkCall => ({ callId: toolCallId, toolName, input });
    tools[toolName] = tool<unknown, FrameworkAnswer>({
      description: fn.description,
      // No validator here: the runtime validates and answers bad arguments in the model's terms.
      inputSchema: jsonSchema(fn.parameters as JSONSchema7),
      // Started as soon as the AI SDK has the input, in call order, before any `execute`.
      onInputAvailable: ({ input, toolCallId, messages, abortSignal }) => {
        stepOf(messages, abortSignal).submit(call(input, toolCallId));
      },
      ...(viaAiSdk
        ? {
            needsApproval: async (
              input: unknown,
              { toolCallId, messages }: { toolCallId: string; messages: ModelMessage[] },
            ) => {
              // The AI SDK asks again before it runs an approved call: it stays approved.
              if (approvedCallIds(messages).has(toolCallId)) return true;
              return (await stepOf(messages, undefined).policyGate(call(input, toolCallId))) === "asked";
            },
          }
        : {}),
      execute: (input, { toolCallId, messages, abortSignal }) =>
        stepOf(messages, abortSignal).answer(call(input, toolCallId)),
      toModelOutput: ({ output }) => aiSdkOutput(output),
    });
  }
  return tools;
}

/** A call's answer as the AI SDK's tool-result output: images as image parts, failures as `error-text`. */
export function aiSdkOutput(answer: FrameworkAnswer): AiSdkToolOutput {
  if (!answer.success) return { type: "error-text", value: answer.text };
  if (answer.images.length === 0) return { type: "text", value: answer.text };
  return {
    type: "content",
    value: [
      ...(answer.text === "" ? [] : [{ type: "text" as const, text: answer.text }]),
      ...answer.images.map((url) => {
        const image = dataUrlImage(url);
        return image
          ? { type: "image-data" as const, data: image.data, mediaType: image.mediaType }
          : { type: "image-url" as const, url };
      }),
    ],
  };
}

/** Calls the user approved in the AI SDK's messages: an approval response, matched to its request. */
function approvedCallIds(messages: readonly ModelMessage[]): Set<string> {
  const approvals = new Set<string>();
  const callOf = new Map<string, string>();
  for (const message of messages) {
    if (typeof message.content === "string") continue;
    for (const part of message.content) {
      if (part.type === "tool-approval-request") callOf.set(part.approvalId, part.toolCallId);
      else if (part.type === "tool-approval-response" && part.approved) approvals.add(part.approvalId);
    }
  }
  const approved = new Set<string>();
  for (const id of approvals) {
    const callId = callOf.get(id);
    if (callId !== undefined) approved.add(callId);
  }
  return approved;
}
