export * from "./readiness.js";
export * from "./events.js";
export * from "./truncation.js";
export * from "./context.js";
export * from "./brokers.js";
export * from "./signalDeadline.js";
export * from "./spill.js";
