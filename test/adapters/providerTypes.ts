/**
 * Type-only checks, compiled by `npm run typecheck` (tsconfig includes test/) and never run:
 * what we produce is accepted by the official `openai` and `@anthropic-ai/sdk` request types,
 * and what their responses contain is accepted by our inputs. The `@ts-expect-error` lines
 * prove the file is really checked: each would compile if it were not.
 */
import type {
  Message,
  MessageParam,
  Tool as AnthropicSdkTool,
  ToolResultBlockParam,
} from "@anthropic-ai/sdk/resources/messages/messages";
import type { ChatCompletion, ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import type {
  ResponseInputItem as SdkResponseInputItem,
  ResponseOutputItem,
  Tool as ResponsesSdkTool,
} from "openai/resources/responses/responses";
import {
  fromAnthropic,
  fromChatCompletions,
  toAnthropicToolResults,
  toAnthropicTools,
  toChatCompletionsMessages,
  toChatCompletionsTools,
  toResponsesTools,
  type ApplyPatchCallItem,
  type ConfiguredToolSpec,
  type ResponseInputItem,
  type ShellCallItem,
  type ToolCallOutcome,
} from "../../src/index.js";

/** Our outputs, sent back to each provider. */
export function ourOutputsAreProviderInputs(outcomes: ToolCallOutcome[], specs: ConfiguredToolSpec[]): unknown[] {
  const items: ResponseInputItem[] = outcomes.map((o) => o.item);
  const responsesInput: SdkResponseInputItem[] = items;
  const chat: ChatCompletionMessageParam[] = toChatCompletionsMessages(outcomes);
  const results: ToolResultBlockParam[] = toAnthropicToolResults(outcomes);
  const nextUserTurn: MessageParam = { role: "user", content: toAnthropicToolResults(items) };
  const responsesTools: ResponsesSdkTool[] = toResponsesTools(specs, { nativeShell: true, nativeApplyPatch: true });
  const chatTools: ChatCompletionTool[] = toChatCompletionsTools(specs);
  const chatCustomTools: ChatCompletionTool[] = toChatCompletionsTools(specs, { customTools: true });
  const anthropicTools: AnthropicSdkTool[] = toAnthropicTools(specs);
  return [responsesInput, chat, results, nextUserTurn, responsesTools, chatTools, chatCustomTools, anthropicTools];
}

/** Each provider's response, taken as it comes; the items we make of it are Responses items too. */
export function providerOutputsAreOurInputs(
  completion: ChatCompletion,
  message: Message,
  out: ResponseOutputItem,
): unknown[] {
  const choice = completion.choices[0];
  if (!choice) return [];
  const fromChat: SdkResponseInputItem[] = fromChatCompletions(choice.message);
  const fromCalls: SdkResponseInputItem[] = fromChatCompletions(choice.message.tool_calls ?? []);
  const fromClaude: SdkResponseInputItem[] = fromAnthropic(message.content);
  const fromClaudeMessage: SdkResponseInputItem[] = fromAnthropic(message);
  const shell: ShellCallItem | undefined = out.type === "shell_call" ? out : undefined;
  const patch: ApplyPatchCallItem | undefined = out.type === "apply_patch_call" ? out : undefined;
  return [fromChat, fromCalls, fromClaude, fromClaudeMessage, shell, patch];
}

export function theseChecksBite(outcomes: ToolCallOutcome[]): unknown[] {
  // @ts-expect-error Chat tool messages are not Anthropic tool results
  const wrongProvider: ToolResultBlockParam[] = toChatCompletionsMessages(outcomes);
  // @ts-expect-error an apply_patch_call_output's status is completed or failed
  const badStatus: SdkResponseInputItem = { type: "apply_patch_call_output", call_id: "c", status: "done" };
  return [wrongProvider, badStatus];
}
