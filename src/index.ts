/**
 * toolcall-runtime: executes the tool calls a language model emits in a coding-agent turn.
 * Layers: protocol <- turn <- registry <- router <- runtime; handlers and mcp plug in.
 */
export * from "./protocol/index.js";
export * from "./turn/index.js";
export * from "./registry/index.js";
export * from "./router/index.js";
export * from "./runtime/index.js";
