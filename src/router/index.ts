export { ToolRouter, type DispatchOptions, type DispatchResult } from "./router.js";
export { itemCallId, ToolCallFailure, type BuiltToolCall } from "./buildToolCall.js";
