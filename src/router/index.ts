export { ToolRouter, type DispatchOptions, type DispatchResult } from "./router.js";
export { itemCallId, type BuiltToolCall, type ToolCallFailure } from "./buildToolCall.js";
