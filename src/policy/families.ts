/**
 * Tool families (DESIGN section 11): a rule naming one tool of a family covers every tool of
 * it, so that switching presets (`shell` to `exec_command`) or pasting Claude Code's names
 * keeps every rule in force.
 */

/**
 * The shell tools: every name under which the router runs a command, plus Claude Code's
 * `Bash`. Their rule specifiers are command words.
 */
export const SHELL_FAMILY: ReadonlySet<string> = new Set([
  "shell",
  "shell_command",
  "local_shell",
  "exec_command",
  "shell_call",
  "Bash",
]);

/** Does a rule written for `ruleTool` speak of a call of `toolName` by family? */
export function sameShellFamily(ruleTool: string, toolName: string): boolean {
  return SHELL_FAMILY.has(ruleTool) && SHELL_FAMILY.has(toolName);
}
