export * from "./router.js";
export { itemCallId } from "./buildToolCall.js";

