export { ToolRouter } from "./router.js";
export { ToolCallFailure, type BuiltToolCall } from "./buildToolCall.js";
