/**
 * `toolcall-runtime/policy`: what the policy stage is built from, for tools that load, check or
 * explain a policy (the `toolcall` command uses each): Claude Code settings, the warnings a
 * hook or rule config earns at load, and the shell-script reduction rules judge by (DESIGN
 * section 11). The engine, its policy and the approval types are in the package root.
 */
export {
  ClaudeSettingsError,
  hookConfigWarnings,
  hooksFor,
  loadClaudeSettings,
  parseClaudeSettings,
  policyToolWarnings,
  reduceCommands,
  SHELL_FAMILY,
  type ClaudeSettings,
  type JudgedCommand,
  type JudgedCommands,
  type LoadClaudeSettingsOptions,
} from "../policy/index.js";
export { loadBashParser } from "../util/index.js";
