export { ToolRouter } from "./router.js";
export { itemCallId, ToolCallFailure, type BuiltToolCall } from "./buildToolCall.js";
