export * from "./router.js";
export { itemCallId } from "./buildToolCall.js";
export { mcpResultBody, responseItemFor } from "./outputs.js";
