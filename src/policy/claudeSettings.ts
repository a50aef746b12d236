import { readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Logger } from "pino";
import type { HookConfig, HookEventName, PermissionMode } from "../protocol/index.js";
import { errorMessage, isRecord, parseJsonc } from "../util/index.js";
import { CLAUDE_FILE_TOOLS, CLAUDE_UNOFFERED_TOOLS } from "./claudeTools.js";
import { hookConfigWarnings, validateHookConfig } from "./hookConfig.js";
import { PermissionRule } from "./rules.js";

/**
 * Claude Code's `.claude/settings.json` and `settings.local.json` (and `~/.claude/settings.json`),
 * read whole (DESIGN section 11, "Settings people bring"): permission rules in Claude Code's
 * syntax, the default mode, additional directories and hooks become this runtime's policy; what
 * cannot apply here is named in a warning, never dropped in silence.
 */
export interface ClaudeSettings {
  /** The files read, lowest scope first. */
  files: string[];
  /** Rules in our syntax (Claude Code's `Bash(...)` written as `shell(...)`), and the mode. */
  permissions: { mode?: PermissionMode; allow: string[]; ask: string[]; deny: string[]; nonInteractive?: boolean };
  hooks: HookConfig;
  /** `permissions.additionalDirectories`, absolute: writable roots beside the cwd. */
  writableRoots: string[];
  /** One sentence each, naming the file and the key or rule. */
  warnings: string[];
  /** Documented Claude Code keys with no meaning here (`model`, `statusLine`, ...), as `file: key`. */
  ignoredKeys: string[];
}

/** A settings file that cannot be used as it is: names the file and the key or rule. */
export class ClaudeSettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ClaudeSettingsError";
  }
}

/** `defaultMode` → our mode; `dontAsk` (never prompt, deny what no rule allows) is default with nobody to ask. */
const MODES: Record<string, { mode: PermissionMode; nonInteractive?: true }> = {
  default: { mode: "default" },
  acceptEdits: { mode: "accept_edits" },
  plan: { mode: "read_only" },
  bypassPermissions: { mode: "bypass" },
  dontAsk: { mode: "default", nonInteractive: true },
};

const PERMISSION_KEYS = ["allow", "ask", "deny", "defaultMode", "additionalDirectories"];
/** Permission keys that guard something we do not apply: warned, so nobody believes they hold. */
const PERMISSION_UNAPPLIED = ["disableBypassPermissionsMode", "disableAutoMode"];
/** Top-level keys Claude Code documents that concern the agent, not its tools: noted, not warned. */
const DOCUMENTED_KEYS = [
  "$schema",
  "env",
  "model",
  "apiKeyHelper",
  "cleanupPeriodDays",
  "includeCoAuthoredBy",
  "attribution",
  "statusLine",
  "subagentStatusLine",
  "outputStyle",
  "forceLoginMethod",
  "forceLoginOrgUUID",
  "enableAllProjectMcpServers",
  "enabledMcpjsonServers",
  "disabledMcpjsonServers",
  "allowedMcpServers",
  "deniedMcpServers",
  "awsAuthRefresh",
  "awsCredentialExport",
  "otelHeadersHelper",
  "enabledPlugins",
  "extraKnownMarketplaces",
  "strictKnownMarketplaces",
  "spinnerTipsEnabled",
  "alwaysThinkingEnabled",
  "companyAnnouncements",
  "respectGitignore",
  "language",
  "plansDirectory",
  "autoUpdatesChannel",
  "showTurnDuration",
  "terminalProgressBarEnabled",
  "fileSuggestion",
  "feedbackSurveyRate",
];
/** Top-level keys that guard something we do not apply (Claude Code's own sandbox): warned. */
const UNAPPLIED_KEYS = ["sandbox", "allowManagedHooksOnly", "allowManagedPermissionRulesOnly"];

/**
 * One Claude Code rule in ours, or a warning when it names a tool we do not offer. `Bash(cmd:*)`
 * and `Bash(cmd *)` become `shell(cmd:*)`; `Read(/x)` (Claude Code: relative to the project) is
 * anchored at `projectDir`, `Read(//x)` is the absolute `/x`; `mcp__server` is every tool of the
 * server. Throws naming the rule when it cannot be expressed here.
 */
function translateClaudeRule(rule: string, projectDir: string, where: string): { rule: string } | { warning: string } {
  const fail = (why: string): never => {
    throw new ClaudeSettingsError(`${where}: invalid permission rule "${rule}": ${why}`);
  };
  const text = rule.trim();
  const match = /^([^()]+?)(?:\((.*)\))?$/s.exec(text);
  if (!match) return fail("expected Tool or Tool(specifier)");
  const tool = match[1] ?? "";
  const specifier = match[2];
  let ours: string;
  if (tool === "Bash") {
    ours = specifier === undefined || specifier === "*" ? "shell" : `shell(${bashSpecifier(specifier, fail)})`;
  } else if (Object.hasOwn(CLAUDE_FILE_TOOLS, tool)) {
    ours = specifier === undefined ? tool : `${tool}(${claudePath(specifier, projectDir)})`;
  } else if (CLAUDE_UNOFFERED_TOOLS.has(tool)) {
    return {
      warning: `${where}: rule "${rule}" names Claude Code's ${tool}, which no tool here is; it decides nothing`,
    };
  } else if (/^mcp__[^_]+(?:_[^_]+)*$/.test(tool) && specifier === undefined) {
    ours = `${tool}__*`; // `mcp__server`: every tool of that server
  } else {
    ours = text;
  }
  try {
    new PermissionRule(ours);
  } catch (err) {
    fail(errorMessage(err));
  }
  return { rule: ours };
}

/** Claude Code's Bash specifiers: `npm run test:*` as is, `npm run *` (a trailing word wildcard) as `npm run:*`. */
function bashSpecifier(specifier: string, fail: (why: string) => never): string {
  if (specifier.endsWith(":*") && !specifier.slice(0, -2).includes("*")) return specifier;
  if (specifier.endsWith(" *") && !specifier.slice(0, -2).includes("*")) return `${specifier.slice(0, -2)}:*`;
  if (specifier.includes("*")) {
    return fail("only a trailing wildcard (`cmd:*` or `cmd *`) can be matched here, not one inside the command");
  }
  return specifier;
}

/** Claude Code's path forms: `//x` absolute, `/x` from the project, `~/x`, `./x` and `x` as ours. */
function claudePath(specifier: string, projectDir: string): string {
  if (specifier.startsWith("//")) return specifier.slice(1);
  if (specifier.startsWith("/")) return path.join(projectDir, specifier);
  return specifier;
}

/** The project a settings file belongs to: the parent of its `.claude` folder, else its own folder. */
function projectDirOf(file: string): string {
  const dir = path.dirname(path.resolve(file));
  return path.basename(dir) === ".claude" ? path.dirname(dir) : dir;
}

function empty(): ClaudeSettings {
  return {
    files: [],
    permissions: { allow: [], ask: [], deny: [] },
    hooks: {},
    writableRoots: [],
    warnings: [],
    ignoredKeys: [],
  };
}

/**
 * One settings document (already parsed). Unknown keys warn, naming the key and the file; a
 * malformed rule, mode or hook throws `ClaudeSettingsError` naming it.
 */
export function parseClaudeSettings(doc: unknown, file: string): ClaudeSettings {
  if (!isRecord(doc)) throw new ClaudeSettingsError(`${file}: expected a JSON object`);
  const out = empty();
  out.files.push(file);
  const projectDir = projectDirOf(file);
  for (const key of Object.keys(doc)) {
    if (key === "permissions" || key === "hooks" || key === "disableAllHooks") continue;
    if (DOCUMENTED_KEYS.includes(key)) out.ignoredKeys.push(`${file}: ${key}`);
    else if (UNAPPLIED_KEYS.includes(key)) {
      out.warnings.push(`${file}: ${key} is Claude Code's own setting and is not applied here`);
    } else out.warnings.push(`${file}: unknown key ${key}; ignored`);
  }
  const permissions = doc["permissions"];
  if (permissions !== undefined) {
    if (!isRecord(permissions)) throw new ClaudeSettingsError(`${file}: permissions: expected an object`);
    readPermissions(permissions, file, projectDir, out);
  }
  const hooks = doc["hooks"];
  if (hooks !== undefined && doc["disableAllHooks"] !== true) {
    try {
      out.hooks = validateHookConfig(hooks, "hooks", (warning) => out.warnings.push(`${file}: ${warning}`));
    } catch (err) {
      throw new ClaudeSettingsError(`${file}: ${errorMessage(err)}`);
    }
    out.warnings.push(...hookConfigWarnings(out.hooks, file));
  }
  return out;
}

function readPermissions(p: Record<string, unknown>, file: string, projectDir: string, out: ClaudeSettings): void {
  for (const key of Object.keys(p)) {
    if (PERMISSION_UNAPPLIED.includes(key)) {
      out.warnings.push(`${file}: permissions.${key} is not applied here`);
    } else if (!PERMISSION_KEYS.includes(key)) {
      out.warnings.push(`${file}: unknown key permissions.${key}; ignored`);
    }
  }
  for (const list of ["allow", "ask", "deny"] as const) {
    const rules = p[list];
    if (rules === undefined) continue;
    if (!Array.isArray(rules) || !rules.every((r) => typeof r === "string")) {
      throw new ClaudeSettingsError(`${file}: permissions.${list}: expected an array of rule strings`);
    }
    for (const rule of rules) {
      const translated = translateClaudeRule(rule, projectDir, `${file}: permissions.${list}`);
      if ("rule" in translated) out.permissions[list].push(translated.rule);
      else out.warnings.push(translated.warning);
    }
  }
  const mode = p["defaultMode"];
  if (mode !== undefined) {
    const ours = typeof mode === "string" && Object.hasOwn(MODES, mode) ? MODES[mode] : undefined;
    if (ours === undefined) {
      throw new ClaudeSettingsError(
        `${file}: permissions.defaultMode: expected one of ${Object.keys(MODES).join(", ")}, got ${JSON.stringify(mode)}`,
      );
    }
    out.permissions.mode = ours.mode;
    if (ours.nonInteractive) out.permissions.nonInteractive = true;
  }
  const dirs = p["additionalDirectories"];
  if (dirs !== undefined) {
    if (!Array.isArray(dirs) || !dirs.every((d) => typeof d === "string" && d !== "")) {
      throw new ClaudeSettingsError(`${file}: permissions.additionalDirectories: expected an array of paths`);
    }
    for (const d of dirs as string[]) {
      const expanded = d === "~" || d.startsWith("~/") ? os.homedir() + d.slice(1) : d;
      out.writableRoots.push(path.resolve(projectDir, expanded));
    }
  }
}

/**
 * Scopes merged as Claude Code merges them, lowest first (user < project < local): rule lists
 * and hooks add up (the engine's order makes deny win wherever it came from), additional
 * directories too, and the mode comes from the highest scope that sets one.
 */
function mergeClaudeSettings(scopes: readonly ClaudeSettings[]): ClaudeSettings {
  const out = empty();
  for (const s of scopes) {
    out.files.push(...s.files);
    for (const list of ["allow", "ask", "deny"] as const) out.permissions[list].push(...s.permissions[list]);
    if (s.permissions.mode !== undefined) {
      out.permissions.mode = s.permissions.mode;
      if (s.permissions.nonInteractive) out.permissions.nonInteractive = true;
      else delete out.permissions.nonInteractive;
    }
    for (const [event, matchers] of Object.entries(s.hooks) as Array<[HookEventName, HookConfig[HookEventName]]>) {
      out.hooks[event] = [...(out.hooks[event] ?? []), ...(matchers ?? [])];
    }
    out.writableRoots.push(...s.writableRoots.filter((r) => !out.writableRoots.includes(r)));
    out.warnings.push(...s.warnings);
    out.ignoredKeys.push(...s.ignoredKeys);
  }
  return out;
}

/** Reads and parses one settings file (JSON with comments allowed); undefined when it does not exist and `optional`. */
export async function readClaudeSettingsFile(file: string, optional = false): Promise<ClaudeSettings | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    if (optional && (err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new ClaudeSettingsError(`${file}: cannot read settings: ${errorMessage(err)}`);
  }
  let doc: unknown;
  try {
    doc = parseJsonc(text);
  } catch (err) {
    throw new ClaudeSettingsError(`${file}: invalid JSON: ${errorMessage(err).split("\n")[0] ?? ""}`);
  }
  return parseClaudeSettings(doc, file);
}

export interface LoadClaudeSettingsOptions {
  /** These files, lowest scope first; without them the scopes are discovered. */
  files?: readonly string[];
  /** The project: `<dir>/.claude/settings.json` and `settings.local.json`. Default: the process's cwd. */
  dir?: string;
  /** Read `~/.claude/settings.json` as the lowest scope when discovering. Default true. */
  user?: boolean;
  /** Each warning is also logged here at warn level. */
  logger?: Logger;
}

/**
 * The settings a Claude Code user already has, merged: the given `files`, or the user,
 * project and local scopes that exist. Throws `ClaudeSettingsError` naming a malformed file,
 * key or rule; returns the warnings (also logged) for everything that loads but cannot apply.
 */
export async function loadClaudeSettings(opts: LoadClaudeSettingsOptions = {}): Promise<ClaudeSettings> {
  const given = opts.files;
  const dir = path.resolve(opts.dir ?? process.cwd());
  const files = given
    ? given.map((f) => path.resolve(dir, f))
    : [
        ...(opts.user === false ? [] : [path.join(os.homedir(), ".claude", "settings.json")]),
        path.join(dir, ".claude", "settings.json"),
        path.join(dir, ".claude", "settings.local.json"),
      ];
  const scopes: ClaudeSettings[] = [];
  for (const file of files) {
    const scope = await readClaudeSettingsFile(file, given === undefined);
    if (scope) scopes.push(scope);
  }
  const merged = mergeClaudeSettings(scopes);
  for (const warning of merged.warnings) opts.logger?.warn({ warning }, "Claude Code settings");
  return merged;
}
