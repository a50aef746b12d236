export * from "./types.js";
export { PermissionEngine, type HookDecision } from "./engine.js";
export { PermissionRule, type RuleMode } from "./rules.js";
