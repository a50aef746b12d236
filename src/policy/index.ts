export * from "./types.js";
export * from "./hooks.js";
export { PermissionEngine } from "./engine.js";
export { PermissionRule, type RuleMode } from "./rules.js";
