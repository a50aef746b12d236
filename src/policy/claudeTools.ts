/**
 * Claude Code's tool names as rules and hook matchers name them, mapped onto ours (DESIGN
 * section 11, "Tool families"). Claude Code documents that `Read` rules cover every built-in
 * tool that reads files and `Edit` rules every tool that edits them, so each name covers a
 * family here. `Bash` is the shell family's (src/policy/families.ts); the settings loader
 * writes it as `shell`.
 */
export const CLAUDE_FILE_TOOLS: Readonly<Record<string, readonly string[]>> = {
  Read: ["read_file", "list_dir", "view_image", "glob", "grep_files"],
  Edit: ["apply_patch", "edit_file", "write_file"],
  MultiEdit: ["apply_patch", "edit_file", "write_file"],
  Write: ["write_file", "apply_patch"],
  Glob: ["glob"],
  Grep: ["grep_files"],
  LS: ["list_dir"],
  TodoWrite: ["update_plan"],
  AskUserQuestion: ["request_user_input"],
};

/**
 * Claude Code tools with no counterpart here: a rule or matcher naming one loads (the settings
 * are someone's real file) and is warned about, since it can never decide a call.
 */
export const CLAUDE_UNOFFERED_TOOLS: ReadonlySet<string> = new Set([
  "WebFetch",
  "WebSearch",
  "Task",
  "Agent",
  "NotebookEdit",
  "NotebookRead",
  "BashOutput",
  "KillShell",
  "KillBash",
  "Skill",
  "SlashCommand",
  "ExitPlanMode",
  "EnterPlanMode",
  "ListMcpResourcesTool",
  "ReadMcpResourceTool",
]);

/** Our tools a rule's tool part names besides an exact match: a Claude Code name's family. */
export function claudeFamily(tool: string): readonly string[] | undefined {
  return Object.hasOwn(CLAUDE_FILE_TOOLS, tool) ? CLAUDE_FILE_TOOLS[tool] : undefined;
}

/**
 * The Claude Code names hook matchers use for our tools: a matcher `Bash` or `Edit|Write`,
 * written for Claude Code, matches the tools that do that job here. (Hook scripts still read our
 * `tool_input`: `shell` carries an argv, not Claude Code's command string.)
 */
const CLAUDE_NAMES: Readonly<Record<string, readonly string[]>> = {
  shell: ["Bash"],
  local_shell: ["Bash"],
  shell_command: ["Bash"],
  exec_command: ["Bash"],
  read_file: ["Read"],
  view_image: ["Read"],
  list_dir: ["LS"],
  glob: ["Glob"],
  grep_files: ["Grep"],
  edit_file: ["Edit", "MultiEdit"],
  write_file: ["Write"],
  apply_patch: ["Edit", "MultiEdit", "Write"],
  update_plan: ["TodoWrite"],
  request_user_input: ["AskUserQuestion"],
};

/** Claude Code's names for one of our tools (empty for most: MCP tools keep their `mcp__` names). */
export function claudeNamesOf(toolName: string): readonly string[] {
  return Object.hasOwn(CLAUDE_NAMES, toolName) ? (CLAUDE_NAMES[toolName] ?? []) : [];
}
