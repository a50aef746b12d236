export * from "./items.js";
export * from "./call.js";
export * from "./spec.js";
export * from "./output.js";
export * from "./errors.js";
export * from "./exporters.js";
