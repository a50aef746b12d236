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
import { validateDomainPatterns } from "../sandbox/index.js";
import { checkConfig, describeValue, errorMessage, isRecord, keyPath, parseJsonc } from "../util/index.js";
import { codexApprovals } from "./codexApprovals.js";
import { ConfigError } from "./configError.js";
import type { ConfigDocument } from "./configSchema.js";
import type { DockerSettings, SandboxSettings } from "./sandboxSettings.js";

export { ConfigError } from "./configError.js";

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
 * A parsed config document checked by its form's schema (src/cli/configSchema.ts): the
 * `[tools]`, `[runtime]`, `[permissions]`, `[hooks]`, sandbox and `[shell_environment_policy]`
 * sections and the top-level keys. Servers are `[mcp_servers.NAME]` in TOML and `mcpServers`
 * in JSON (the common MCP client format); the MCP config parser reads them. `permissions`
 * (snake_case keys) and `hooks` take the same shapes in both, so a `.claude/settings.json` hook
 * block pastes in unchanged.
 */
async function parseCliConfig(
  doc: unknown,
  file: string,
  json = isJsonFile(file),
): Promise<Omit<CliConfig, "mcpServers">> {
  const { JSON_CONFIG, TOML_CONFIG } = await import("./configSchema.js");
  if (!isRecord(doc) || doc instanceof Date) {
    throw new ConfigError(`${file}: expected a table at the top level, got ${describeValue(doc)}`);
  }
  const checked = checkConfig<ConfigDocument>(json ? JSON_CONFIG : TOML_CONFIG, doc);
  if (!checked.ok) {
    const p = checked.problem;
    if (p.kind === "invalid") throw new ConfigError(`${file}: ${keyPath("", p.path)}: ${p.message}`);
    throw new ConfigError(
      `${file}: unknown key ${keyPath("", [...p.path, p.key])} (known keys: ${p.known.join(", ")})`,
    );
  }
  const d = checked.value;
  const warnings: string[] = [];
  const ignoredKeys: string[] = [];
  for (const { path: at, key, known, kind } of checked.unknown) {
    const dotted = keyPath("", [...at, key]);
    if (kind === "documented") ignoredKeys.push(dotted);
    else warnings.push(`${file}: unknown key ${dotted}; ignored (known keys: ${known.join(", ")})`);
  }
  // Relative to the config file, as the user wrote them.
  const base = path.dirname(path.resolve(file));
  const tools: ToolsConfig = { ...d.tools };
  if (d.quotas !== undefined) tools.quotas = d.quotas;
  if (tools.skills) tools.skills = tools.skills.map((p) => path.resolve(base, p));
  if (tools.spillDir !== undefined) tools.spillDir = path.resolve(base, tools.spillDir);
  const runtime = runtimeSettings(d, file, tools);
  const config: Omit<CliConfig, "mcpServers"> = { file, tools, runtime };
  if (d.permissions !== undefined) config.permissions = d.permissions;
  if (d.hooks !== undefined) {
    config.hooks = parseHooks(d.hooks, file);
    warnings.push(...hookConfigWarnings(config.hooks, file));
  }
  if (!json) {
    const codex = codexApprovals(doc, file);
    addPolicy(config, codex, `${file}: approval_policy`);
    warnings.push(...codex.warnings);
  }
  const sandbox = sandboxSettings(d, file, base);
  if (sandbox !== undefined) config.sandbox = sandbox;
  if (d.docker !== undefined) config.docker = d.docker;
  if (d.shell_environment_policy !== undefined) config.shellEnvironmentPolicy = d.shell_environment_policy;
  if (warnings.length > 0) config.warnings = warnings;
  if (ignoredKeys.length > 0) config.ignoredKeys = ignoredKeys;
  return config;
}

function runtimeSettings(d: ConfigDocument, file: string, tools: ToolsConfig): RuntimeSettings {
  const runtime: RuntimeSettings = {};
  if (d.runtime?.max_concurrency !== undefined) runtime.maxConcurrency = d.runtime.max_concurrency;
  if (d.runtime?.truncation !== undefined) runtime.truncation = d.runtime.truncation;
  const timeout = d.runtime?.exec_timeout_ms;
  if (timeout !== undefined) {
    if (tools.execTimeoutMs !== undefined && tools.execTimeoutMs !== timeout) {
      throw new ConfigError(`${file}: runtime.exec_timeout_ms and tools.exec_timeout_ms disagree; set one of them`);
    }
    tools.execTimeoutMs = timeout;
  }
  return runtime;
}

/** The value both places give, or the one that is given; an error naming both when they differ. */
function agree<T>(file: string, a: { key: string; value: T | undefined }, b: { key: string; value: T | undefined }) {
  if (a.value !== undefined && b.value !== undefined && JSON.stringify(a.value) !== JSON.stringify(b.value)) {
    throw new ConfigError(`${file}: ${a.key} and ${b.key} disagree; set one of them`);
  }
  return a.value ?? b.value;
}

/**
 * `[sandbox]` and Codex's names for the same settings: top-level `sandbox_mode` and
 * `[sandbox_workspace_write]`. A setting given in both places must agree. Relative roots are
 * resolved against the config file's directory (where the user wrote them), not the turn's
 * cwd. Undefined when the file says nothing.
 */
function sandboxSettings(d: ConfigDocument, file: string, base: string): SandboxSettings | undefined {
  const own = d.sandbox;
  const codex = d.sandbox_workspace_write;
  const roots = (list: string[] | undefined): string[] | undefined => list?.map((r) => path.resolve(base, r));
  const mode = agree(file, { key: "sandbox.mode", value: own?.mode }, { key: "sandbox_mode", value: d.sandbox_mode });
  const writableRoots = agree(
    file,
    { key: "sandbox.writable_roots", value: roots(own?.writable_roots) },
    { key: "sandbox_workspace_write.writable_roots", value: roots(codex?.writable_roots) },
  );
  let allowlist: boolean | string[] | undefined = own?.network_access as boolean | undefined;
  if (Array.isArray(own?.network_access)) {
    try {
      allowlist = validateDomainPatterns(own.network_access, "sandbox.network_access");
    } catch (err) {
      throw new ConfigError(`${file}: ${errorMessage(err)}`);
    }
  }
  const networkAccess = agree(
    file,
    { key: "sandbox.network_access", value: allowlist },
    { key: "sandbox_workspace_write.network_access", value: codex?.network_access },
  );
  if (own === undefined && codex === undefined && mode === undefined) return undefined;
  const settings: SandboxSettings = {};
  if (mode !== undefined) settings.mode = mode;
  if (writableRoots !== undefined) settings.writableRoots = writableRoots;
  if (Array.isArray(networkAccess)) settings.allowedDomains = networkAccess;
  else if (networkAccess !== undefined) settings.networkAccess = networkAccess;
  const readableRoots = roots(own?.readable_roots);
  if (readableRoots !== undefined) settings.readableRoots = readableRoots;
  const allowUnixSockets = roots(own?.allow_unix_sockets);
  if (allowUnixSockets !== undefined) settings.allowUnixSockets = allowUnixSockets;
  return settings;
}

const isJsonFile = (file: string): boolean => file.endsWith(".json") || file.endsWith(".jsonc");

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
  const config = await parseCliConfig(doc, file, true);
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
  const config = await parseCliConfig(doc, file);
  if (config.ignoredKeys) opts.logger?.debug({ file, keys: config.ignoredKeys }, "config keys not used here; ignored");
  return { ...config, mcpServers: await mcpServersOf(doc, () => text, file, isJsonFile(file), opts.logger) };
}
