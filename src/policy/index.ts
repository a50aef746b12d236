export * from "./types.js";
export * from "./hooks.js";
export { PermissionEngine } from "./engine.js";
export { PermissionRule, type RuleMode } from "./rules.js";
export { resolveRealPaths } from "./paths.js";
export {
  ClaudeSettingsError,
  loadClaudeSettings,
  parseClaudeSettings,
  readClaudeSettingsFile,
  type ClaudeSettings,
  type LoadClaudeSettingsOptions,
} from "./claudeSettings.js";
export { policyToolWarnings } from "./toolWarnings.js";
export { SHELL_FAMILY } from "./families.js";
export { prepareSubject } from "./subjectCommands.js";
export { reduceCommands, type JudgedCommand, type JudgedCommands } from "./reduceCommands.js";
