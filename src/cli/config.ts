import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "pino";
import type { McpServersConfig } from "../mcp/index.js";
import {
  ClaudeSettingsError,
  hookConfigWarnings,
  loadClaudeSettings,
  readClaudeSettingsFile,
  validateHookConfig,
  type ClaudeSettings,
  type HookConfig,
  type HookEventName,
  type PermissionMode,
  type PermissionPolicy,
} from "../policy/index.js";
import type { ToolsConfig } from "../toolset.js";
import type { TruncationPolicy } from "../turn/index.js";
import type { EnvironmentPolicy } from "../protocol/index.js";
import { errorMessage, isRecord, parseJsonc } from "../util/index.js";
import { codexApprovals } from "./codexApprovals.js";
import { ConfigError, isTable, Section, typeName } from "./configSection.js";
import {
  parseDockerSettings,
  parseSandboxSettings,
  parseShellEnvironmentPolicy,
  SANDBOX_CONFIG_KEYS,
  type DockerSettings,
  type SandboxSettings,
} from "./sandboxConfig.js";

export { ConfigError } from "./configSection.js";

export interface RuntimeSettings {
  maxConcurrency?: number;
  truncation?: TruncationPolicy;
}

/** Everything `toolcall.toml` (or `--config FILE`) says. */
export interface CliConfig {
  /** The file read, or undefined when none exists (embedded defaults). */
  file: string | undefined;
  tools: ToolsConfig;
  runtime: RuntimeSettings;
  mcpServers: McpServersConfig;
  /** `[permissions]`: the session's policy; its `approve` callback is the embedder's, never a file's. */
  permissions?: PermissionPolicy;
  /** `[hooks]`: the hooks.json shape Claude Code and Codex share. */
  hooks?: HookConfig;
  /** `[sandbox]`, or Codex's `sandbox_mode` and `[sandbox_workspace_write]`; roots are absolute. */
  sandbox?: SandboxSettings;
  /** `[shell_environment_policy]`: which variables commands see. */
  shellEnvironmentPolicy?: EnvironmentPolicy;
  /** `[docker]`: commands run in a container of `image` (the sandbox settings then do not apply). */
  docker?: DockerSettings;
  /** Keys Codex or Claude document that this file has and we do not use (logged at debug). */
  ignoredKeys?: string[];
  /**
   * What loads but cannot apply, one sentence each naming the file and the key, rule or hook
   * event (an unknown key of another agent's settings, a hook event the runtime never fires):
   * the CLI prints them on stderr.
   */
  warnings?: string[];
}

const DEFAULT_CONFIG_NAME = "toolcall.toml";

const TOOL_KEYS = [
  "preset",
  "shell",
  "apply_patch",
  "edit_file",
  "write_file",
  "read_file",
  "list_dir",
  "grep_files",
  "glob",
  "view_image",
  "update_plan",
  "test_sync_tool",
  "request_user_input",
  "user_input_timeout_ms",
  "image_detail",
  "shell_non_safe_exclusive",
  "exec_timeout_ms",
  "max_exec_sessions",
  "skills",
  "spill_dir",
  "defer_tools",
  "groups",
] as const;
const RUNTIME_KEYS = ["max_concurrency", "truncation", "exec_timeout_ms"] as const;
const MAX_TIMEOUT_MS = 24 * 3600 * 1000;

function parseTools(s: Section): ToolsConfig {
  s.rejectUnknown(TOOL_KEYS, ["web_search"]); // Codex's hosted web search is not ours to run
  const tools: ToolsConfig = {};
  const preset = s.oneOf("preset", ["codex"] as const);
  if (preset !== undefined) tools.preset = preset;
  const shell = s.oneOf("shell", ["shell", "shell_command", "unified_exec", false] as const);
  if (shell !== undefined) tools.shell = shell;
  const applyPatch = s.oneOf("apply_patch", ["freeform", "function", false] as const);
  if (applyPatch !== undefined) tools.applyPatch = applyPatch;
  const flags = [
    ["edit_file", "editFile"],
    ["write_file", "writeFile"],
    ["read_file", "readFile"],
    ["list_dir", "listDir"],
    ["grep_files", "grepFiles"],
    ["glob", "glob"],
    ["view_image", "viewImage"],
    ["update_plan", "updatePlan"],
    ["test_sync_tool", "testSyncTool"],
    ["request_user_input", "requestUserInput"],
    ["shell_non_safe_exclusive", "shellNonSafeExclusive"],
    ["defer_tools", "deferTools"],
  ] as const;
  for (const [key, prop] of flags) {
    const v = s.boolean(key);
    if (v !== undefined) tools[prop] = v;
  }
  const timeout = s.integer("exec_timeout_ms", 1, MAX_TIMEOUT_MS);
  if (timeout !== undefined) tools.execTimeoutMs = timeout;
  const userInputTimeout = s.integer("user_input_timeout_ms", 1, MAX_TIMEOUT_MS);
  if (userInputTimeout !== undefined) tools.userInputTimeoutMs = userInputTimeout;
  const imageDetail = s.oneOf("image_detail", ["auto", "low", "high", "original"] as const);
  if (imageDetail !== undefined) tools.imageDetail = imageDetail;
  const sessions = s.integer("max_exec_sessions", 1, 1024);
  if (sessions !== undefined) tools.maxExecSessions = sessions;
  // Relative to the config file, as the sandbox's roots are.
  const base = path.dirname(path.resolve(s.file));
  const skills = s.stringArray("skills", { nonEmpty: true });
  if (skills !== undefined) tools.skills = skills.map((p) => path.resolve(base, p));
  const spillDir = s.string("spill_dir");
  if (spillDir !== undefined) tools.spillDir = path.resolve(base, spillDir);
  const groups = s.subTable("groups");
  if (groups) {
    tools.groups = {};
    for (const name of groups.keys()) {
      const g = groups.subTable(name) ?? groups.fail(name, "a table with tools, description, instructions");
      g.rejectUnknown(["tools", "description", "instructions"]);
      const list = g.stringArray("tools", { nonEmpty: true }) ?? g.fail("tools", "a list of tool names");
      const description = g.string("description");
      const instructions = g.string("instructions");
      tools.groups[name] = {
        tools: list,
        ...(description !== undefined && { description }),
        ...(instructions !== undefined && { instructions }),
      };
    }
  }
  return tools;
}

function parseRuntime(s: Section, file: string, tools: ToolsConfig): RuntimeSettings {
  s.rejectUnknown(RUNTIME_KEYS);
  const runtime: RuntimeSettings = {};
  const max = s.integer("max_concurrency", 1, 256);
  if (max !== undefined) runtime.maxConcurrency = max;
  const t = s.subTable("truncation");
  if (t) {
    t.rejectUnknown(["mode", "limit"]);
    const mode = t.oneOf("mode", ["bytes", "tokens"] as const) ?? "bytes";
    const limit = t.integer("limit", 0, Number.MAX_SAFE_INTEGER);
    if (limit === undefined) throw new ConfigError(`${file}: runtime.truncation.limit: expected integer, got nothing`);
    runtime.truncation = { mode, limit };
  }
  const timeout = s.integer("exec_timeout_ms", 1, MAX_TIMEOUT_MS);
  if (timeout !== undefined) {
    if (tools.execTimeoutMs !== undefined && tools.execTimeoutMs !== timeout) {
      throw new ConfigError(`${file}: runtime.exec_timeout_ms and tools.exec_timeout_ms disagree; set one of them`);
    }
    tools.execTimeoutMs = timeout;
  }
  return runtime;
}

const PERMISSION_KEYS = ["mode", "allow", "ask", "deny", "approval_timeout_ms", "risk_field", "ask_at_risk"] as const;
const PERMISSION_MODES = [
  "default",
  "accept_edits",
  "read_only",
  "bypass",
] as const satisfies readonly PermissionMode[];

/** Types only: the rules' syntax is checked by the `PermissionEngine` built from them. */
function parsePermissions(s: Section): PermissionPolicy {
  s.rejectUnknown(PERMISSION_KEYS);
  const policy: PermissionPolicy = {};
  const mode = s.oneOf("mode", PERMISSION_MODES);
  if (mode !== undefined) policy.mode = mode;
  for (const key of ["allow", "ask", "deny"] as const) {
    const rules = s.stringArray(key);
    if (rules !== undefined) policy[key] = rules;
  }
  const timeout = s.integer("approval_timeout_ms", 1, MAX_TIMEOUT_MS);
  if (timeout !== undefined) policy.approvalTimeoutMs = timeout;
  const riskField = s.boolean("risk_field");
  if (riskField !== undefined) policy.riskField = riskField;
  const askAtRisk = s.oneOf("ask_at_risk", ["medium", "high"] as const);
  if (askAtRisk !== undefined) policy.askAtRisk = askAtRisk;
  return policy;
}

function parseHooks(value: unknown, file: string): HookConfig {
  try {
    return validateHookConfig(value, "hooks");
  } catch (err) {
    throw new ConfigError(`${file}: ${errorMessage(err)}`);
  }
}

/** Hooks of two configs, event by event, `a`'s matchers first. */
function mergeHooks(a: HookConfig | undefined, b: HookConfig): HookConfig {
  const out: HookConfig = { ...a };
  for (const [event, matchers] of Object.entries(b) as Array<[HookEventName, HookConfig[HookEventName]]>) {
    out[event] = [...(out[event] ?? []), ...(matchers ?? [])];
  }
  return out;
}

/**
 * Rules and a mode from another source (Codex's approval keys, Claude Code settings) added to
 * the config's `[permissions]`: rules add up; two different modes are an error naming both.
 */
function addPolicy(
  config: Omit<CliConfig, "mcpServers">,
  add: { mode?: PermissionMode | undefined; allow: string[]; ask: string[]; deny?: string[] },
  source: string,
): void {
  const policy: PermissionPolicy = { ...config.permissions };
  if (add.mode !== undefined) {
    if (policy.mode !== undefined && policy.mode !== add.mode) {
      throw new ConfigError(
        `${source} sets the mode ${JSON.stringify(add.mode)} and the config's [permissions] mode ${JSON.stringify(policy.mode)}; set one of them`,
      );
    }
    policy.mode = add.mode;
  }
  for (const list of ["allow", "ask", "deny"] as const) {
    const rules = add[list] ?? [];
    if (rules.length > 0) policy[list] = [...(policy[list] ?? []), ...rules];
  }
  if (add.mode !== undefined || add.allow.length + add.ask.length + (add.deny?.length ?? 0) > 0) {
    config.permissions = policy;
  }
}

/**
 * Claude Code settings (`--settings`, `--claude-settings`, or a `settings.json` given as the
 * config) over a config: rules, mode, hooks, `additionalDirectories` as writable roots, and
 * their warnings.
 */
function withClaudeSettings<C extends Omit<CliConfig, "mcpServers">>(config: C, claude: ClaudeSettings): C {
  const out: C = { ...config };
  addPolicy(out, claude.permissions, claude.files.join(", "));
  if (Object.keys(claude.hooks).length > 0) out.hooks = mergeHooks(out.hooks, claude.hooks);
  if (claude.writableRoots.length > 0) {
    out.sandbox = { ...out.sandbox, writableRoots: [...(out.sandbox?.writableRoots ?? []), ...claude.writableRoots] };
  }
  if (claude.warnings.length > 0) out.warnings = [...(out.warnings ?? []), ...claude.warnings];
  if (claude.ignoredKeys.length > 0) out.ignoredKeys = [...(out.ignoredKeys ?? []), ...claude.ignoredKeys];
  return out;
}

/**
 * Validates the `[tools]`, `[runtime]`, `[permissions]`, `[hooks]`, sandbox and
 * `[shell_environment_policy]` sections of a parsed config document and its top-level keys. Servers are `[mcp_servers.NAME]` in TOML and `mcpServers` in JSON (the
 * common MCP client format); the MCP config parser reads them. `permissions` (snake_case
 * keys) and `hooks` take the same shapes in both, so a `.claude/settings.json` hook block
 * pastes in unchanged.
 */
function parseCliConfig(doc: unknown, file: string, json = isJsonFile(file)): Omit<CliConfig, "mcpServers"> {
  if (!isTable(doc)) throw new ConfigError(`${file}: expected a table at the top level, got ${typeName(doc)}`);
  const known = [
    "tools",
    "runtime",
    "permissions",
    "hooks",
    ...(json ? ["mcpServers", "servers", "inputs"] : ["mcp_servers", "approval_policy"]),
    ...SANDBOX_CONFIG_KEYS,
  ];
  const top = new Section(file, "", doc);
  top.rejectUnknown(known, json ? CLAUDE_TOP_LEVEL_KEYS : CODEX_TOP_LEVEL_KEYS);
  const section = (key: string): Section => {
    const v = doc[key];
    if (v !== undefined && !isTable(v)) {
      throw new ConfigError(`${file}: ${key}: expected table, got ${typeName(v)}`);
    }
    return new Section(file, key, isTable(v) ? v : {}, top.ignored);
  };
  const tools = parseTools(section("tools"));
  const runtime = parseRuntime(section("runtime"), file, tools);
  const config: Omit<CliConfig, "mcpServers"> = { file, tools, runtime };
  if (doc["permissions"] !== undefined) config.permissions = parsePermissions(section("permissions"));
  if (doc["hooks"] !== undefined) {
    config.hooks = parseHooks(doc["hooks"], file);
    const warnings = hookConfigWarnings(config.hooks, file);
    if (warnings.length > 0) config.warnings = warnings;
  }
  if (!json) {
    const codex = codexApprovals(doc, file);
    addPolicy(config, codex, `${file}: approval_policy`);
    if (codex.warnings.length > 0) config.warnings = [...(config.warnings ?? []), ...codex.warnings];
  }
  const sandbox = parseSandboxSettings(top);
  if (sandbox !== undefined) config.sandbox = sandbox;
  const docker = parseDockerSettings(top);
  if (docker !== undefined) config.docker = docker;
  if (doc["shell_environment_policy"] !== undefined) {
    config.shellEnvironmentPolicy = parseShellEnvironmentPolicy(section("shell_environment_policy"));
  }
  if (top.ignored.length > 0) config.ignoredKeys = top.ignored;
  return config;
}

const isJsonFile = (file: string): boolean => file.endsWith(".json") || file.endsWith(".jsonc");

/**
 * Top-level keys of a whole `~/.codex/config.toml` (Codex's docs/config.md) that are Codex's
 * own business (model, UI, telemetry): skipped, so the file loads as it is.
 */
const CODEX_TOP_LEVEL_KEYS = [
  "model",
  "model_provider",
  "model_providers",
  "model_context_window",
  "model_max_output_tokens",
  "model_auto_compact_token_limit",
  "model_reasoning_effort",
  "model_reasoning_summary",
  "model_reasoning_summary_format",
  "model_verbosity",
  "model_supports_reasoning_summaries",
  "review_model",
  "oss_provider",
  "tool_output_token_limit",
  "notify",
  "instructions",
  "experimental_instructions_file",
  "experimental_use_exec_command_tool",
  "experimental_use_rmcp_client",
  "features",
  "ghost_snapshot",
  "project_doc_max_bytes",
  "profile",
  "profiles",
  "history",
  "file_opener",
  "tui",
  "hide_agent_reasoning",
  "show_raw_agent_reasoning",
  "check_for_update_on_startup",
  "chatgpt_base_url",
  "projects",
  "otel",
  "forced_login_method",
  "forced_chatgpt_workspace_id",
  "cli_auth_credentials_store",
  "mcp_oauth_credentials_store",
  "disable_response_storage",
  "windows_wsl_setup_acknowledged",
];

/** Top-level keys of Claude Desktop's `claude_desktop_config.json` besides `mcpServers`, and a JSON schema reference. */
const CLAUDE_TOP_LEVEL_KEYS = ["globalShortcut", "preferences", "$schema"];

/** Claude Code's settings files: given as the config, they are read as Claude Code reads them. */
const isClaudeSettingsFile = (file: string): boolean =>
  ["settings.json", "settings.local.json"].includes(path.basename(file));

/** Claude Code settings errors are config errors (exit 2). */
async function claudeSettings<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (err instanceof ClaudeSettingsError) throw new ConfigError(err.message);
    throw err;
  }
}

/**
 * A config given as an object in the JSON form (the sidecar's `initialize.config`): errors
 * name it `initialize.config`, and relative paths resolve against `dir`.
 */
export async function configFromDocument(doc: Record<string, unknown>, dir: string): Promise<CliConfig> {
  const file = path.join(dir, "initialize.config");
  const config = parseCliConfig(doc, file, true);
  return { ...config, mcpServers: await mcpServersOf(doc, () => JSON.stringify(doc), file, true, undefined) };
}

/**
 * The servers a config names. The MCP layer (with its SDK and smol-toml) is loaded only for
 * a config that has a server table: `toolcall exec` without servers starts faster.
 */
async function mcpServersOf(
  doc: unknown,
  text: () => string,
  file: string,
  json: boolean,
  logger: Logger | undefined,
): Promise<McpServersConfig> {
  const tables = json ? ["mcpServers", "servers"] : ["mcp_servers"];
  if (!isRecord(doc) || tables.every((t) => doc[t] === undefined)) return {};
  const { McpConfigError, parseMcpConfigJson, parseMcpConfigToml } = await import("../mcp/index.js");
  try {
    const parse = json ? parseMcpConfigJson : parseMcpConfigToml;
    return parse(text(), file, logger ? { logger } : {});
  } catch (err) {
    if (err instanceof McpConfigError) throw new ConfigError(err.message);
    throw err;
  }
}

/**
 * Loads `--config FILE` (TOML, or JSON when it ends in `.json`), else `toolcall.toml` in
 * `dir` when it exists, else the embedded defaults.
 */
export async function loadCliConfig(opts: {
  configPath?: string | undefined;
  dir: string;
  logger?: Logger | undefined;
  /** `--settings FILE`s: Claude Code settings over the config, lowest scope first. */
  settings?: readonly string[] | undefined;
  /** `--claude-settings`: `~/.claude/settings.json`, then the cwd's `.claude/settings.json` and `settings.local.json`. */
  claudeSettings?: boolean | undefined;
}): Promise<CliConfig> {
  const config = await loadConfigFile(opts);
  const scopes = [
    ...(opts.claudeSettings === true ? [await claudeSettings(() => loadClaudeSettings({ dir: opts.dir }))] : []),
    ...(opts.settings?.length
      ? [await claudeSettings(() => loadClaudeSettings({ dir: opts.dir, files: opts.settings ?? [] }))]
      : []),
  ];
  return scopes.reduce((c, s) => withClaudeSettings(c, s), config);
}

async function loadConfigFile(opts: {
  configPath?: string | undefined;
  dir: string;
  logger?: Logger | undefined;
}): Promise<CliConfig> {
  const explicit = opts.configPath !== undefined;
  const file = explicit ? path.resolve(opts.dir, opts.configPath as string) : path.join(opts.dir, DEFAULT_CONFIG_NAME);
  if (explicit && isClaudeSettingsFile(file)) {
    const settings = await claudeSettings(() => readClaudeSettingsFile(file));
    const empty: CliConfig = { file, tools: {}, runtime: {}, mcpServers: {} };
    return settings ? withClaudeSettings(empty, settings) : empty;
  }
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (!explicit && code === "ENOENT") return { file: undefined, tools: {}, runtime: {}, mcpServers: {} };
    throw new ConfigError(`${file}: cannot read config: ${errorMessage(err)}`);
  }
  let doc: unknown;
  try {
    doc = isJsonFile(file) ? parseJsonc(text) : (await import("smol-toml")).parse(text);
  } catch (err) {
    const kind = isJsonFile(file) ? "JSON" : "TOML";
    throw new ConfigError(`${file}: invalid ${kind}: ${errorMessage(err).split("\n")[0]}`);
  }
  const config = parseCliConfig(doc, file);
  if (config.ignoredKeys) opts.logger?.debug({ file, keys: config.ignoredKeys }, "config keys not used here; ignored");
  return { ...config, mcpServers: await mcpServersOf(doc, () => text, file, isJsonFile(file), opts.logger) };
}
