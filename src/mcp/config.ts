import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "pino";
import { parse as parseToml } from "smol-toml";
import { defaultLogger } from "../turn/index.js";
import { checkConfig, describeValue, errorMessage, isRecord, keyPath, parseJsonc } from "../util/index.js";
import { serverSchema, type Form } from "./configSchema.js";
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

const snake = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const FORMS = {
  programmatic: { table: "servers", keyOf: (f: string) => f },
  toml: { table: "mcp_servers", keyOf: snake },
  mcpServers: { table: "mcpServers", keyOf: (f: string) => f },
  servers: { table: "servers", keyOf: (f: string) => f },
} satisfies Record<string, Form>;
const SCHEMAS = {
  programmatic: serverSchema("programmatic", FORMS.programmatic),
  toml: serverSchema("toml", FORMS.toml),
  json: serverSchema("json", FORMS.mcpServers),
};

interface ParseOptions {
  /** Gets a debug line for each key a known format documents but we do not use. */
  logger?: Logger | undefined;
  /** Expand `${VAR}` in command, args, env, cwd, url and headers (file loaders do). */
  scope?: VariableScope | undefined;
  /** Where the JSON forms' `envFile` is relative to. */
  base?: string | undefined;
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

/** The error's `key`: the server's key, with the `oauth` table's key under it. */
const errorKey = (path: readonly PropertyKey[]): string | undefined => {
  const [first, second] = path.map(String);
  if (first === undefined) return undefined;
  return (first === "oauth" || first === "oauth_resource") && second !== undefined ? `${first}.${second}` : first;
};

function validateServers(
  raw: unknown,
  kind: keyof typeof SCHEMAS,
  form: Form,
  file: string | undefined,
  opts: ParseOptions = {},
): McpServersConfig {
  const where = file ? `${file}: ` : "";
  if (!isRecord(raw) || raw instanceof Date) {
    throw new McpConfigError(
      `${where}${form.table} must be a table of servers, got ${describeValue(raw)}`,
      file,
      undefined,
      undefined,
    );
  }
  const out: McpServersConfig = {};
  for (const [server, body] of Object.entries(raw)) {
    const fail: (path: readonly PropertyKey[], message: string) => never = (path, message) => {
      throw new McpConfigError(
        `${where}${keyPath(`${form.table}.${server}`, path)}: ${message}`,
        file,
        server,
        errorKey(path),
      );
    };
    if (!isValidServerName(server)) {
      fail([], `expected a server name matching ^[a-zA-Z0-9_-]+$, got ${JSON.stringify(server)}`);
    }
    const checked = checkConfig(SCHEMAS[kind], body);
    if (!checked.ok) {
      const p = checked.problem;
      if (p.kind === "invalid") fail(p.path, p.message);
      else fail([...p.path, p.key], `expected one of the keys ${p.known.join(", ")}, got unknown key "${p.key}"`);
    }
    for (const { path, key } of checked.unknown) {
      (opts.logger ?? defaultLogger()).debug(
        { file, server, key: keyPath("", [...path, key]) },
        "MCP config key not used here; ignored",
      );
    }
    const { envFile, ...config } = checked.value;
    if (envFile !== undefined) {
      try {
        const vars = readEnvFile(
          path.resolve(opts.base ?? ".", expandVariables(envFile, opts.scope ?? scopeFor(undefined))),
        );
        config.env = { ...vars, ...config.env };
      } catch (err) {
        fail(["envFile"], `expected a readable env file (${errorMessage(err)}), got ${describeValue(envFile)}`);
      }
    }
    if (opts.scope) expandServer(config, opts.scope, (key, why) => fail([key], why));
    if (config.url !== undefined) {
      try {
        const u = new URL(config.url);
        if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("not http");
      } catch {
        fail([form.keyOf("url")], `expected an http:// or https:// URL, got ${JSON.stringify(config.url)}`);
      }
    }
    out[server] = config;
  }
  return out;
}

/** Checks a programmatic (camelCase) config; throws `McpConfigError` naming server and key. */
export function validateMcpServersConfig(servers: unknown): McpServersConfig {
  return validateServers(servers, "programmatic", FORMS.programmatic, undefined);
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
  return validateServers(doc["mcp_servers"], "toml", FORMS.toml, file, { ...opts, scope: scopeFor(file) });
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
  for (const table of ["mcpServers", "servers"] as const) {
    if (doc[table] === undefined) continue;
    const servers = validateServers(doc[table], "json", FORMS[table], file, { ...opts, scope, base });
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
