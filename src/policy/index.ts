export * from "./types.js";
export * from "./hooks.js";
