export { ToolRouter, type DispatchOptions, type DispatchResult, type DispatchSink } from "./router.js";
export { itemCallId, ToolCallFailure, type BuiltToolCall } from "./buildToolCall.js";
