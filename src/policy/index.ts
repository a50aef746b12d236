export * from "./types.js";
export * from "./hookConfig.js";
export * from "./hooks.js";
export { PermissionEngine } from "./engine.js";
export { PermissionRule, type RuleMode } from "./rules.js";
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
export { reduceCommands, type JudgedCommand, type JudgedCommands } from "./reduceCommands.js";
// Asking a person: the policy stage, approvals, sandbox escalation, request_user_input.
export { policyStage } from "./stage.js";
export { postToolUse, postToolUseFailure } from "./postToolUse.js";
export { respondToApproval } from "./approval.js";
export { escalate } from "./escalation.js";
export { requestUserInput, respondToUserInput } from "./userInput.js";
