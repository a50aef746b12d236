export { dataUrlImage, toolAnswer, type OutputLike, type ToolAnswer } from "./outcomes.js";
export {
  fromChatCompletions,
  toChatCompletionsMessages,
  type ChatMessage,
  type ChatToolCall,
  type ChatToolMessage,
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
export { detectFormat, itemsOf, outputValues, WIRE_FORMATS, type WireFormat } from "./wireFormat.js";
