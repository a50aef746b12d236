export * from "./runtime.js";
export * from "./errors.js";
export * from "./lock.js";
