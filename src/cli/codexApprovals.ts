import type { PermissionMode } from "../policy/index.js";
import { describeValue, isRecord } from "../util/index.js";
import { ConfigError } from "./configError.js";

type Table = Record<string, unknown>;
/** A table: TOML dates are objects too, but never a table of settings. */
const isTable = (v: unknown): v is Table => isRecord(v) && !(v instanceof Date);

/**
 * Codex's approval settings in a `config.toml` (DESIGN section 11, "Settings people bring"),
 * as a mode and rules: `approval_policy`, `[mcp_servers.X] default_tools_approval_mode` and
 * `[mcp_servers.X.tools.Y] approval_mode`.
 */
export interface CodexApprovals {
  mode?: PermissionMode;
  allow: string[];
  ask: string[];
  warnings: string[];
}

/**
 * `untrusted`: only known-safe commands run unasked, which is our default mode (a command that
 * is not known-safe is mutating, and asked); `on-request` and `on-failure` ask for the same (the
 * sandbox escalation of a failed command is asked in every mode); `never`: nothing is asked,
 * everything runs inside the sandbox (`bypass`; escalations still need a person).
 */
const POLICIES: Record<string, PermissionMode> = {
  untrusted: "default",
  "on-request": "default",
  "on-failure": "default",
  never: "bypass",
};

/** `prompt`: always asked (an ask rule); `approve`: never asked (an allow rule); `auto`: the mode decides. */
const TOOL_MODES = ["auto", "prompt", "approve"];
const TOOL_KEYS = ["approval_mode"];

/** Tool names as the MCP layer qualifies them: `mcp__{server}__{tool}`, other characters as `_`. */
const part = (name: string): string => name.replace(/[^A-Za-z0-9_-]/g, "_");

export function codexApprovals(doc: Table, file: string): CodexApprovals {
  const out: CodexApprovals = { allow: [], ask: [], warnings: [] };
  const policy = doc["approval_policy"];
  if (policy !== undefined) {
    const mode = typeof policy === "string" && Object.hasOwn(POLICIES, policy) ? POLICIES[policy] : undefined;
    if (mode === undefined) {
      const choices = Object.keys(POLICIES)
        .map((p) => JSON.stringify(p))
        .join(", ");
      throw new ConfigError(`${file}: approval_policy: expected one of ${choices}, got ${describeValue(policy)}`);
    }
    out.mode = mode;
  }
  const servers = doc["mcp_servers"];
  if (!isTable(servers)) return out; // the MCP parser names a malformed table
  for (const [server, body] of Object.entries(servers)) {
    if (!isTable(body)) continue;
    const where = `mcp_servers.${server}`;
    const serverMode = approvalMode(body["default_tools_approval_mode"], `${where}.default_tools_approval_mode`, file);
    if (serverMode === "prompt") out.ask.push(`mcp__${part(server)}__*`);
    if (serverMode === "approve") out.allow.push(`mcp__${part(server)}__*`);
    const tools = body["tools"];
    if (tools === undefined) continue;
    if (!isTable(tools)) throw new ConfigError(`${file}: ${where}.tools: expected table, got ${describeValue(tools)}`);
    for (const [tool, settings] of Object.entries(tools)) {
      const at = `${where}.tools.${tool}`;
      if (!isTable(settings)) throw new ConfigError(`${file}: ${at}: expected table, got ${describeValue(settings)}`);
      for (const key of Object.keys(settings)) {
        if (!TOOL_KEYS.includes(key)) out.warnings.push(`${file}: unknown key ${at}.${key}; ignored`);
      }
      const mode = approvalMode(settings["approval_mode"], `${at}.approval_mode`, file);
      const rule = `mcp__${part(server)}__${part(tool)}`;
      if (mode === "prompt") out.ask.push(rule);
      if (mode === "approve") {
        out.allow.push(rule);
        // Ask rules come before allow rules: the server's "prompt" still asks for this tool.
        if (serverMode === "prompt") {
          out.warnings.push(
            `${file}: ${at}.approval_mode = "approve" under default_tools_approval_mode = "prompt": the tool is still asked`,
          );
        }
      }
    }
  }
  return out;
}

function approvalMode(value: unknown, key: string, file: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !TOOL_MODES.includes(value)) {
    throw new ConfigError(`${file}: ${key}: expected one of "auto", "prompt", "approve", got ${describeValue(value)}`);
  }
  return value;
}
