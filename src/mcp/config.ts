import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "pino";
import { parse as parseToml } from "smol-toml";
import { defaultLogger } from "../turn/index.js";
import { errorMessage, isRecord, parseJsonc } from "../util/index.js";
import { expandVariables, readEnvFile, scopeFor, type VariableScope } from "./configVars.js";
import { isValidServerName } from "./names.js";

/** One MCP server, programmatic (camelCase) form. Exactly one of `command` / `url`. */
export interface McpServerConfig {
  /** stdio: the program to launch (its environment: a safe base plus `env`). */
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  /**
   * Codex `env_vars`: names of variables copied from this process's environment into the
   * server's (read at each start; unset ones are left out; `env` wins over them).
   */
  envVars?: string[];
  cwd?: string;
  /** Streamable HTTP endpoint; falls back to SSE for legacy servers. */
  url?: string;
  /** Name of the environment variable holding a bearer token for `url`. */
  bearerTokenEnvVar?: string;
  httpHeaders?: Record<string, string>;
  /**
   * Codex `env_http_headers`: header name -> name of the environment variable holding its
   * value (read at each connect; an unset or blank variable sends no header). Wins over
   * `httpHeaders`; the bearer token wins over both for `Authorization`.
   */
  envHttpHeaders?: Record<string, string>;
  /** initialize + first tools/list; default 30. */
  startupTimeoutSec?: number;
  /**
   * Codex's legacy `startup_timeout_ms`: validation turns it into `startupTimeoutSec`
   * (giving both is an error), so a validated config never holds it.
   */
  startupTimeoutMs?: number;
  /** Each tools/call, reset by progress notifications; default 120. */
  toolTimeoutSec?: number;
  /** Default true. */
  enabled?: boolean;
  enabledTools?: string[];
  disabledTools?: string[];
  /** Run every tool of this server in parallel (otherwise only `readOnlyHint` tools). */
  supportsParallelToolCalls?: boolean;
  /** Start-up fails when this server fails. */
  required?: boolean;
  /** Cap on one message from a stdio server; default 64 MiB (`tool call error: reply exceeded {N} bytes`). */
  maxReplyBytes?: number;
  /** OAuth settings for a `url` server. */
  oauth?: McpOAuthConfig;
}

/**
 * OAuth for a `url` server (TOML: `[mcp_servers.NAME.oauth]`, snake_case keys). Without it a
 * server that answers 401 still gets the authorization code flow with dynamic registration.
 */
export interface McpOAuthConfig {
  /** A pre-registered client (no dynamic registration); with `clientSecret` or `privateKey` for machines. */
  clientId?: string;
  clientSecret?: string;
  /** PEM private key: client credentials with `private_key_jwt` client authentication. */
  privateKey?: string;
  /**
   * The authorization server's issuer URL: client credentials are sent only to it. Without it,
   * they go to the authorization server the MCP server's metadata names.
   */
  issuer?: string;
  /** JWS algorithm for `privateKey`; default ES256. */
  signingAlgorithm?: string;
  /** `client_credentials` for machines; default `authorization_code` (a person authorizes once). */
  grantType?: "authorization_code" | "client_credentials";
  scopes?: string[];
  /** Fixed loopback port for the redirect (some servers register exact redirect URIs). */
  callbackPort?: number;
  /** A URL-based client id (client ID metadata document), used where the server supports it. */
  clientMetadataUrl?: string;
  clientName?: string;
  /**
   * Enterprise single sign-on (SEP-990, cross-app access): the person's ID token (from the
   * variable `idTokenEnvVar`) is exchanged at the identity provider's `idpTokenEndpoint` for an
   * identity assertion, which the authorization server takes as a JWT bearer grant (with
   * `clientId` / `clientSecret`).
   */
  idpTokenEndpoint?: string;
  idpClientId?: string;
  idTokenEnvVar?: string;
}

export type McpServersConfig = Record<string, McpServerConfig>;

export const DEFAULT_STARTUP_TIMEOUT_SEC = 30;
export const DEFAULT_TOOL_TIMEOUT_SEC = 120;

/** A bad MCP configuration: says where (file, server, key) and what was expected. */
export class McpConfigError extends Error {
  constructor(
    message: string,
    readonly file: string | undefined,
    readonly server: string | undefined,
    readonly key: string | undefined,
  ) {
    super(message);
    this.name = "McpConfigError";
  }
}

type Kind = "string" | "strings" | "envNames" | "stringMap" | "positive" | "millis" | "bytes" | "boolean" | "oauth";
const FIELDS: Record<keyof McpServerConfig, Kind> = {
  command: "string",
  args: "strings",
  env: "stringMap",
  envVars: "envNames",
  cwd: "string",
  url: "string",
  bearerTokenEnvVar: "string",
  httpHeaders: "stringMap",
  envHttpHeaders: "stringMap",
  startupTimeoutSec: "positive",
  startupTimeoutMs: "millis",
  toolTimeoutSec: "positive",
  enabled: "boolean",
  enabledTools: "strings",
  disabledTools: "strings",
  supportsParallelToolCalls: "boolean",
  required: "boolean",
  maxReplyBytes: "bytes",
  oauth: "oauth",
};

const OAUTH_FIELDS: Record<keyof McpOAuthConfig, Kind | "grant" | "port"> = {
  clientId: "string",
  clientSecret: "string",
  privateKey: "string",
  signingAlgorithm: "string",
  issuer: "string",
  grantType: "grant",
  scopes: "strings",
  callbackPort: "port",
  clientMetadataUrl: "string",
  clientName: "string",
  idpTokenEndpoint: "string",
  idpClientId: "string",
  idTokenEnvVar: "string",
};
const EXPECTED: Record<Kind, string> = {
  string: "a string",
  strings: "an array of strings",
  envNames: 'an array of environment variable names (strings, or tables { name, source = "local" })',
  stringMap: "a table of string values",
  positive: "a positive number of seconds",
  millis: "a positive whole number of milliseconds",
  bytes: "a positive whole number of bytes",
  oauth: "a table of OAuth settings",
  boolean: "a boolean",
};

const snake = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
/** A table: TOML dates are objects too, but never a table of settings. */
const isTable = (v: unknown): v is Record<string, unknown> => isRecord(v) && !(v instanceof Date);

function describe(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  if (value instanceof Date) return "a date";
  return typeof value === "object" ? "a table" : `${typeof value} ${JSON.stringify(value)}`;
}

function fits(kind: Kind, v: unknown): boolean {
  switch (kind) {
    case "string":
      return typeof v === "string" && v.length > 0;
    case "strings":
      return Array.isArray(v) && v.every((s) => typeof s === "string");
    case "envNames":
      return Array.isArray(v) && v.every(isEnvVarEntry);
    case "stringMap":
      return isTable(v) && Object.values(v).every((s) => typeof s === "string");
    case "positive":
      return typeof v === "number" && Number.isFinite(v) && v > 0;
    case "millis":
    case "bytes":
      return typeof v === "number" && Number.isSafeInteger(v) && v > 0;
    case "boolean":
      return typeof v === "boolean";
    case "oauth":
      return isTable(v);
  }
}

/** The `oauth` table's keys (in the dialect's case), each checked; a key no format has is an error. */
function parseOAuth(
  raw: Record<string, unknown>,
  keyOf: (f: string) => string,
  fail: (key: string, expected: string, got?: string) => never,
): McpOAuthConfig {
  const byKey = new Map(Object.keys(OAUTH_FIELDS).map((f) => [keyOf(f), f as keyof McpOAuthConfig]));
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const field = byKey.get(key);
    const where = `oauth.${key}`;
    if (!field) fail(where, `one of the keys ${[...byKey.keys()].join(", ")}`, `unknown key "${key}"`);
    const kind = OAUTH_FIELDS[field];
    if (kind === "grant") {
      if (value !== "authorization_code" && value !== "client_credentials") {
        fail(where, '"authorization_code" or "client_credentials"', describe(value));
      }
    } else if (kind === "port") {
      if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > 65535) {
        fail(where, "a port in 1..65535", describe(value));
      }
    } else if (!fits(kind, value)) fail(where, EXPECTED[kind], describe(value));
    out[field] = value;
  }
  const o = out as McpOAuthConfig;
  if ((o.grantType === "client_credentials" || o.privateKey !== undefined) && o.clientId === undefined) {
    fail(`oauth.${keyOf("clientId")}`, "a client id for client credentials");
  }
  const idp = [o.idpTokenEndpoint, o.idpClientId, o.idTokenEnvVar].filter((v) => v !== undefined).length;
  if (idp > 0 && (idp < 3 || o.clientId === undefined)) {
    fail(
      `oauth.${keyOf("idpTokenEndpoint")}`,
      `${keyOf("idpTokenEndpoint")}, ${keyOf("idpClientId")}, ${keyOf("idTokenEnvVar")} and ${keyOf("clientId")} together`,
    );
  }
  if (o.grantType === "client_credentials" && o.privateKey === undefined && o.clientSecret === undefined) {
    fail(`oauth.${keyOf("clientSecret")}`, `a client secret or ${keyOf("privateKey")} for client credentials`);
  }
  return o;
}

/**
 * A Codex `env_vars` entry: a name, or (newer Codex) `{ name, source }` where only the local
 * source applies here (Codex's `remote` needs its remote executor).
 */
type EnvVarEntry = string | { name: string; source?: "local" };
const isEnvVarEntry = (e: unknown): e is EnvVarEntry => {
  if (typeof e === "string") return e.length > 0;
  if (!isTable(e) || typeof e["name"] !== "string" || e["name"] === "") return false;
  return Object.keys(e).every((k) => k === "name" || (k === "source" && e[k] === "local"));
};
const envVarName = (e: EnvVarEntry): string => (typeof e === "string" ? e : e.name);

interface Dialect {
  /** e.g. `mcp_servers`, `mcpServers` or VS Code's `servers`. */
  table: string;
  keyOf(field: keyof McpServerConfig): string;
  /** Extra keys of the dialect, mapped onto the config (JSON `type`, `headers`, `disabled`). */
  extra?: { keys: readonly string[]; apply(key: string, value: unknown, out: McpServerConfig, fail: Fail): void };
  /** Keys a known format documents that we do not use: skipped with a debug log. */
  ignored?: readonly string[];
  /** Keys the permission policy reads from the same table (Codex's approval modes): skipped here. */
  policyKeys?: readonly string[];
}

type Fail = (key: string, expected: string) => never;

const PROGRAMMATIC: Dialect = { table: "servers", keyOf: (f) => f };
const TOML: Dialect = {
  table: "mcp_servers",
  keyOf: snake,
  // Codex: the OAuth resource (its `scopes` become `oauth.scopes`).
  ignored: ["oauth_resource"],
  // Codex's approval modes become permission rules (the CLI's config reads them: src/cli/codexApprovals.ts).
  policyKeys: ["tools", "default_tools_approval_mode"],
  extra: {
    keys: ["scopes"],
    apply(key, value, out, fail) {
      if (!fits("strings", value)) fail(key, EXPECTED.strings);
      out.oauth = { ...out.oauth, scopes: value as string[] };
    },
  },
};

const JSON_EXTRA_KEYS = ["type", "headers", "disabled", "serverUrl", "envFile"] as const;

/** Claude Desktop / Claude Code / Cursor / Cline / Windsurf (`mcpServers`) and VS Code (`servers`). */
function jsonDialect(table: string, base: string | undefined, scope: VariableScope): Dialect {
  return {
    table,
    keyOf: (f) => f,
    extra: {
      keys: JSON_EXTRA_KEYS,
      apply(key, value, out, fail) {
        switch (key as (typeof JSON_EXTRA_KEYS)[number]) {
          case "type": // the transport follows from command/url
            if (!["stdio", "http", "streamable-http", "streamableHttp", "sse"].includes(value as string)) {
              fail(key, `one of "stdio", "http", "streamable-http", "sse"`);
            }
            return;
          case "headers":
            if (!fits("stringMap", value)) fail(key, EXPECTED.stringMap);
            out.httpHeaders = { ...(value as Record<string, string>), ...out.httpHeaders };
            return;
          case "disabled":
            if (typeof value !== "boolean") fail(key, EXPECTED.boolean);
            out.enabled = !value;
            return;
          case "serverUrl": // Windsurf
            if (!fits("string", value)) fail(key, EXPECTED.string);
            out.url = value as string;
            return;
          case "envFile": {
            // VS Code / Cursor; `env` wins over the file.
            if (!fits("string", value)) fail(key, EXPECTED.string);
            let vars: Record<string, string> = {};
            try {
              vars = readEnvFile(path.resolve(base ?? ".", expandVariables(value as string, scope)));
            } catch (err) {
              fail(key, `a readable env file (${errorMessage(err)})`);
            }
            out.env = { ...vars, ...out.env };
            return;
          }
        }
      },
    },
    // Cline (autoApprove, alwaysAllow, timeout, transportType), VS Code (dev), descriptions.
    ignored: ["autoApprove", "alwaysAllow", "timeout", "transportType", "dev", "description", "name"],
  };
}

interface ParseOptions {
  /** Gets a debug line for each key a known format documents but we do not use. */
  logger?: Logger | undefined;
  /** Expand `${VAR}` in command, args, env, cwd, url and headers (file loaders do). */
  scope?: VariableScope | undefined;
}

/** Every string a server launch or request carries, where `${...}` is expanded. */
function expandServer(config: McpServerConfig, scope: VariableScope, fail: (key: string, why: string) => never): void {
  const one = (key: string, v: string): string => {
    try {
      return expandVariables(v, scope);
    } catch (err) {
      return fail(key, errorMessage(err));
    }
  };
  const map = (key: string, m: Record<string, string>): Record<string, string> =>
    Object.fromEntries(Object.entries(m).map(([k, v]) => [k, one(`${key}.${k}`, v)]));
  if (config.command !== undefined) config.command = one("command", config.command);
  if (config.args) config.args = config.args.map((a, i) => one(`args[${i}]`, a));
  if (config.env) config.env = map("env", config.env);
  if (config.cwd !== undefined) config.cwd = one("cwd", config.cwd);
  if (config.url !== undefined) config.url = one("url", config.url);
  if (config.httpHeaders) config.httpHeaders = map("headers", config.httpHeaders);
}

function validateServers(
  raw: unknown,
  dialect: Dialect,
  file: string | undefined,
  opts: ParseOptions = {},
): McpServersConfig {
  const where = file ? `${file}: ` : "";
  if (!isTable(raw)) {
    throw new McpConfigError(
      `${where}${dialect.table} must be a table of servers, got ${describe(raw)}`,
      file,
      undefined,
      undefined,
    );
  }
  const out: McpServersConfig = {};
  const byKey = new Map(
    Object.keys(FIELDS).map((f) => [dialect.keyOf(f as keyof McpServerConfig), f as keyof McpServerConfig]),
  );
  for (const [server, body] of Object.entries(raw)) {
    const fail = (key: string | undefined, expected: string, got?: string): never => {
      const path = key === undefined ? `${dialect.table}.${server}` : `${dialect.table}.${server}.${key}`;
      throw new McpConfigError(`${where}${path}: expected ${expected}${got ? `, got ${got}` : ""}`, file, server, key);
    };
    if (!isValidServerName(server)) fail(undefined, "a server name matching ^[a-zA-Z0-9_-]+$", JSON.stringify(server));
    if (!isTable(body)) fail(undefined, "a table of settings", describe(body));
    const config: McpServerConfig = {};
    for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
      const field = byKey.get(key);
      if (field) {
        if (!fits(FIELDS[field], value)) fail(key, EXPECTED[FIELDS[field]], describe(value));
        (config as Record<string, unknown>)[field] =
          FIELDS[field] === "envNames"
            ? (value as EnvVarEntry[]).map(envVarName)
            : FIELDS[field] === "oauth"
              ? {
                  ...config.oauth, // Codex's server-level `scopes`, when it came first
                  ...parseOAuth(
                    value as Record<string, unknown>,
                    (f) => dialect.keyOf(f as keyof McpServerConfig),
                    fail,
                  ),
                }
              : value;
        continue;
      }
      if (dialect.extra?.keys.includes(key)) {
        dialect.extra.apply(key, value, config, (k, e) => fail(k, e, describe(value)));
        continue;
      }
      if (dialect.policyKeys?.includes(key)) continue;
      if (dialect.ignored?.includes(key)) {
        (opts.logger ?? defaultLogger()).debug({ file, server, key }, "MCP config key not used here; ignored");
        continue;
      }
      const keys = [...byKey.keys(), ...(dialect.extra?.keys ?? [])];
      fail(key, `one of the keys ${keys.join(", ")}`, `unknown key "${key}"`);
    }
    if (opts.scope) {
      const scope = opts.scope;
      expandServer(config, scope, (key, why) => {
        throw new McpConfigError(`${where}${dialect.table}.${server}.${key}: ${why}`, file, server, key);
      });
    }
    if ((config.command === undefined) === (config.url === undefined)) {
      fail(undefined, `exactly one of "${dialect.keyOf("command")}" (stdio) or "${dialect.keyOf("url")}" (HTTP)`);
    }
    if (config.startupTimeoutMs !== undefined) {
      if (config.startupTimeoutSec !== undefined) {
        fail(
          dialect.keyOf("startupTimeoutMs"),
          `either ${dialect.keyOf("startupTimeoutSec")} or ${dialect.keyOf("startupTimeoutMs")}, not both`,
        );
      }
      config.startupTimeoutSec = config.startupTimeoutMs / 1000;
      delete config.startupTimeoutMs;
    }
    if (config.command !== undefined) {
      for (const f of ["url", "bearerTokenEnvVar", "httpHeaders", "envHttpHeaders", "oauth"] as const) {
        if (config[f] !== undefined)
          fail(dialect.keyOf(f), `no ${dialect.keyOf(f)} for a stdio server (it has "${dialect.keyOf("command")}")`);
      }
    } else {
      for (const f of ["args", "env", "envVars", "cwd"] as const) {
        if (config[f] !== undefined)
          fail(dialect.keyOf(f), `no ${dialect.keyOf(f)} for an HTTP server (it has "${dialect.keyOf("url")}")`);
      }
      try {
        const u = new URL(config.url as string);
        if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("not http");
      } catch {
        fail(dialect.keyOf("url"), "an http:// or https:// URL", JSON.stringify(config.url));
      }
    }
    out[server] = config;
  }
  return out;
}

/** Checks a programmatic (camelCase) config; throws `McpConfigError` naming server and key. */
export function validateMcpServersConfig(servers: unknown): McpServersConfig {
  return validateServers(servers, PROGRAMMATIC, undefined);
}

/**
 * Codex `config.toml`: the `[mcp_servers.NAME]` tables (other tables are the CLI's or
 * Codex's own). `${VAR}` references are expanded.
 */
export function parseMcpConfigToml(text: string, file = "<toml>", opts: { logger?: Logger } = {}): McpServersConfig {
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text);
  } catch (err) {
    throw new McpConfigError(`${file}: invalid TOML: ${errorMessage(err)}`, file, undefined, undefined);
  }
  if (doc["mcp_servers"] === undefined) return {};
  return validateServers(doc["mcp_servers"], TOML, file, { ...opts, scope: scopeFor(file) });
}

/**
 * The JSON forms (comments and trailing commas allowed): `{ "mcpServers": {...} }` (Claude
 * Desktop, Claude Code, Cursor, Cline, Windsurf) and VS Code's `{ "servers": {...},
 * "inputs": [...] }`, camelCase keys. `${VAR}`, `${VAR:-default}` and `${env:VAR}` are
 * expanded.
 */
export function parseMcpConfigJson(text: string, file = "<json>", opts: { logger?: Logger } = {}): McpServersConfig {
  let doc: unknown;
  try {
    doc = parseJsonc(text);
  } catch (err) {
    throw new McpConfigError(`${file}: invalid JSON: ${errorMessage(err)}`, file, undefined, undefined);
  }
  if (!isRecord(doc)) {
    throw new McpConfigError(`${file}: expected a JSON object with "mcpServers"`, file, undefined, undefined);
  }
  const base = file.startsWith("<") ? undefined : path.dirname(path.resolve(file));
  const scope = scopeFor(file.startsWith("<") ? undefined : file, vscodeInputs(doc["inputs"], file));
  const out: McpServersConfig = {};
  for (const table of ["mcpServers", "servers"]) {
    if (doc[table] === undefined) continue;
    const servers = validateServers(doc[table], jsonDialect(table, base, scope), file, { ...opts, scope });
    for (const [name, config] of Object.entries(servers)) {
      if (out[name]) {
        throw new McpConfigError(`${file}: server ${name} is in both mcpServers and servers`, file, name, undefined);
      }
      out[name] = config;
    }
  }
  return out;
}

/** VS Code `inputs`: `[{ id, type, description, password }]`, kept to explain `${input:ID}`. */
function vscodeInputs(raw: unknown, file: string): Map<string, string> {
  const inputs = new Map<string, string>();
  if (raw === undefined) return inputs;
  if (!Array.isArray(raw)) throw new McpConfigError(`${file}: inputs: expected an array`, file, undefined, "inputs");
  for (const [i, input] of raw.entries()) {
    if (!isRecord(input) || typeof input["id"] !== "string") {
      throw new McpConfigError(`${file}: inputs[${i}]: expected { "id": string, ... }`, file, undefined, "inputs");
    }
    inputs.set(input["id"], typeof input["description"] === "string" ? input["description"] : "");
  }
  return inputs;
}

const isJson = (file: string): boolean => file.endsWith(".json") || file.endsWith(".jsonc");

/** Reads a `.toml`, `.json` or `.jsonc` config file (chosen by extension). */
export async function loadMcpConfig(file: string, opts: { logger?: Logger } = {}): Promise<McpServersConfig> {
  const parse = file.endsWith(".toml") ? parseMcpConfigToml : isJson(file) ? parseMcpConfigJson : undefined;
  if (!parse) {
    throw new McpConfigError(`${file}: expected a .toml, .json or .jsonc MCP config file`, file, undefined, undefined);
  }
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    throw new McpConfigError(`${file}: cannot read MCP config: ${errorMessage(err)}`, file, undefined, undefined);
  }
  return parse(text, file, opts);
}
