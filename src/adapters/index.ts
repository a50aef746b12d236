export { type OutputLike } from "./outcomes.js";
export {
  fromChatCompletions,
  toChatCompletionsMessages,
  type ChatMessage,
  type ChatToolCall,
  type ChatToolMessage,
  type ChatUserContentPart,
  type ChatUserMessage,
} from "./chat.js";
export {
  fromAnthropic,
  toAnthropicToolResults,
  type AnthropicContentBlock,
  type AnthropicImageBlock,
  type AnthropicTextBlock,
  type AnthropicToolResultBlock,
  type AnthropicToolUseBlock,
} from "./anthropic.js";
