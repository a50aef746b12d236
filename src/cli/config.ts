import { readFile } from "node:fs/promises";
import path from "node:path";
import { parse as parseToml } from "smol-toml";
import { McpConfigError, parseMcpConfigJson, parseMcpConfigToml, type McpServersConfig } from "../mcp/index.js";
import type { ToolsConfig } from "../toolset.js";
import type { TruncationPolicy } from "../turn/index.js";
import { errorMessage } from "../util/index.js";

/** A config problem the user must fix; `toolcall` exits with code 2. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

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
}

export const DEFAULT_CONFIG_NAME = "toolcall.toml";

type Table = Record<string, unknown>;
const isTable = (v: unknown): v is Table => typeof v === "object" && v !== null && !Array.isArray(v);

function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (v instanceof Date) return "date";
  return typeof v;
}

/** Reads one section's keys, naming the file, the dotted key and the expected type in errors. */
class Section {
  constructor(
    private readonly file: string,
    private readonly name: string,
    private readonly table: Table,
  ) {}

  private fail(key: string, expected: string): never {
    const value = this.table[key];
    throw new ConfigError(`${this.file}: ${this.name}.${key}: expected ${expected}, got ${typeName(value)}`);
  }

  rejectUnknown(known: readonly string[]): void {
    for (const key of Object.keys(this.table)) {
      if (!known.includes(key)) {
        throw new ConfigError(`${this.file}: unknown key ${this.name}.${key} (known keys: ${known.join(", ")})`);
      }
    }
  }

  boolean(key: string): boolean | undefined {
    const v = this.table[key];
    if (v === undefined) return undefined;
    if (typeof v !== "boolean") this.fail(key, "boolean");
    return v;
  }

  integer(key: string, min: number, max: number): number | undefined {
    const v = this.table[key];
    if (v === undefined) return undefined;
    // smol-toml yields bigint only past 2^53; treat it like any other out-of-range number.
    if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) {
      this.fail(key, `integer in ${min}..${max}`);
    }
    return v;
  }

  oneOf<T extends string | false>(key: string, choices: readonly T[]): T | undefined {
    const v = this.table[key];
    if (v === undefined) return undefined;
    if (!choices.includes(v as T)) this.fail(key, `one of ${choices.map((c) => JSON.stringify(c)).join(", ")}`);
    return v as T;
  }

  subTable(key: string): Section | undefined {
    const v = this.table[key];
    if (v === undefined) return undefined;
    if (!isTable(v)) this.fail(key, "table");
    return new Section(this.file, `${this.name}.${key}`, v);
  }
}

const TOOL_KEYS = [
  "shell",
  "apply_patch",
  "read_file",
  "list_dir",
  "grep_files",
  "view_image",
  "update_plan",
  "test_sync_tool",
  "shell_non_safe_exclusive",
  "exec_timeout_ms",
] as const;
const RUNTIME_KEYS = ["max_concurrency", "truncation", "exec_timeout_ms"] as const;
const MAX_TIMEOUT_MS = 24 * 3600 * 1000;

function parseTools(s: Section): ToolsConfig {
  s.rejectUnknown(TOOL_KEYS);
  const tools: ToolsConfig = {};
  const shell = s.oneOf("shell", ["shell", "shell_command", false] as const);
  if (shell !== undefined) tools.shell = shell;
  const applyPatch = s.oneOf("apply_patch", ["freeform", "function", false] as const);
  if (applyPatch !== undefined) tools.applyPatch = applyPatch;
  const flags = [
    ["read_file", "readFile"],
    ["list_dir", "listDir"],
    ["grep_files", "grepFiles"],
    ["view_image", "viewImage"],
    ["update_plan", "updatePlan"],
    ["test_sync_tool", "testSyncTool"],
    ["shell_non_safe_exclusive", "shellNonSafeExclusive"],
  ] as const;
  for (const [key, prop] of flags) {
    const v = s.boolean(key);
    if (v !== undefined) tools[prop] = v;
  }
  const timeout = s.integer("exec_timeout_ms", 1, MAX_TIMEOUT_MS);
  if (timeout !== undefined) tools.execTimeoutMs = timeout;
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

/**
 * Validates the `[tools]` and `[runtime]` sections of a parsed config document and its
 * top-level keys. Servers are `[mcp_servers.NAME]` in TOML and `mcpServers` in JSON (the
 * common MCP client format); the MCP config parser reads them.
 */
export function parseCliConfig(doc: unknown, file: string): Omit<CliConfig, "mcpServers"> {
  if (!isTable(doc)) throw new ConfigError(`${file}: expected a table at the top level, got ${typeName(doc)}`);
  const known = ["tools", "runtime", isJsonFile(file) ? "mcpServers" : "mcp_servers"];
  for (const key of Object.keys(doc)) {
    if (!known.includes(key)) throw new ConfigError(`${file}: unknown key ${key} (known keys: ${known.join(", ")})`);
  }
  const section = (key: string): Section => {
    const v = doc[key];
    if (v !== undefined && !isTable(v)) {
      throw new ConfigError(`${file}: ${key}: expected table, got ${typeName(v)}`);
    }
    return new Section(file, key, isTable(v) ? v : {});
  };
  const tools = parseTools(section("tools"));
  const runtime = parseRuntime(section("runtime"), file, tools);
  return { file, tools, runtime };
}

const isJsonFile = (file: string): boolean => file.endsWith(".json");

/**
 * Loads `--config FILE` (TOML, or JSON when it ends in `.json`), else `toolcall.toml` in
 * `dir` when it exists, else the embedded defaults.
 */
export async function loadCliConfig(opts: { configPath?: string | undefined; dir: string }): Promise<CliConfig> {
  const explicit = opts.configPath !== undefined;
  const file = explicit ? path.resolve(opts.dir, opts.configPath as string) : path.join(opts.dir, DEFAULT_CONFIG_NAME);
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
    doc = isJsonFile(file) ? JSON.parse(text) : parseToml(text);
  } catch (err) {
    const kind = isJsonFile(file) ? "JSON" : "TOML";
    throw new ConfigError(`${file}: invalid ${kind}: ${errorMessage(err).split("\n")[0]}`);
  }
  const config = parseCliConfig(doc, file);
  try {
    const mcpServers = isJsonFile(file) ? parseMcpConfigJson(text, file) : parseMcpConfigToml(text, file);
    return { ...config, mcpServers };
  } catch (err) {
    if (err instanceof McpConfigError) throw new ConfigError(err.message);
    throw err;
  }
}
