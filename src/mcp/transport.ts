import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Logger } from "pino";
import { errorMessage, isRecord } from "../util/index.js";
import type { McpServerConfig } from "./config.js";
import { ProcessGroupStdioTransport, type StdioLaunch } from "./stdioTransport.js";

/** One SDK client over one transport to a server. */
export interface ClientSession {
  readonly client: Client;
  readonly transport: Transport;
}

export interface ConnectOptions {
  /**
   * A fresh client carrying the caller's notification handlers (one per transport tried), of
   * the SDK's `Client` class given.
   */
  newClient(sdkClient: typeof Client): Client;
  signal: AbortSignal;
  /** Sees each session before it connects, so the caller can close one still connecting. */
  onSession(session: ClientSession): void;
  logger: Logger;
  /** The fetch of a `url` server (OAuth wraps it); default the global fetch. */
  fetch?: FetchLike | undefined;
}

/**
 * Connects a new client to the server `config` describes: stdio for a `command`, otherwise
 * Streamable HTTP, falling back to SSE when the server refuses it as legacy servers do.
 * The SDK's client modules are imported here, when the first server starts, rather than with
 * the library: `import("toolcall-runtime")` does not pay for them.
 */
export async function connectClient(
  server: string,
  config: McpServerConfig,
  opts: ConnectOptions,
): Promise<ClientSession> {
  const { signal } = opts;
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  if (config.command !== undefined) {
    const stdio = sessionOver(new ProcessGroupStdioTransport(stdioLaunch(config.command, config)), Client, opts);
    try {
      await stdio.client.connect(stdio.transport, { signal });
    } catch (err) {
      // "Connection closed" alone does not say why: add how the process ended.
      const exit = exitDescription(stdio.transport);
      throw exit ? new Error(`${errorMessage(err)} (${exit})`) : err;
    }
    return stdio;
  }
  const url = new URL(config.url as string);
  const http = { requestInit: { headers: httpHeaders(config) }, ...(opts.fetch && { fetch: opts.fetch }) };
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const streamable = sessionOver(new StreamableHTTPClientTransport(url, http), Client, opts);
  try {
    await streamable.client.connect(streamable.transport, { signal });
    return streamable;
  } catch (err) {
    if (signal.aborted || !isLegacyTransportRefusal(err)) throw err;
    await streamable.client.close().catch(() => undefined);
    opts.logger.info({ server }, "MCP server refused Streamable HTTP; falling back to SSE");
  }
  const { SSEClientTransport } = await import("@modelcontextprotocol/sdk/client/sse.js");
  const sse = sessionOver(new SSEClientTransport(url, http), Client, opts);
  await sse.client.connect(sse.transport, { signal });
  return sse;
}

function sessionOver(transport: Transport, sdkClient: typeof Client, opts: ConnectOptions): ClientSession {
  const session = { client: opts.newClient(sdkClient), transport };
  opts.onSession(session);
  return session;
}

/** The stdio server's process id (its process group leader) while it runs. */
export function serverPid(transport: Transport): number | undefined {
  return transport instanceof ProcessGroupStdioTransport ? transport.pid : undefined;
}

/** How a stdio server's process ended, once it has. */
export function exitDescription(transport: Transport): string | undefined {
  return transport instanceof ProcessGroupStdioTransport ? transport.exitDescription() : undefined;
}

function stdioLaunch(command: string, config: McpServerConfig): StdioLaunch {
  const env = serverEnv(config);
  return {
    command,
    ...(config.args && { args: config.args }),
    ...(env && { env }),
    ...(config.cwd && { cwd: config.cwd }),
    ...(config.maxReplyBytes !== undefined && { maxReplyBytes: config.maxReplyBytes }),
  };
}

/**
 * What a stdio server gets on top of the transport's safe base environment: the `envVars`
 * set in this process (read at each start, as Codex does), then `env`, which wins.
 */
function serverEnv(config: McpServerConfig): Record<string, string> | undefined {
  if (!config.envVars?.length) return config.env;
  const env: Record<string, string> = {};
  for (const name of config.envVars) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...config.env };
}

/**
 * `httpHeaders`, then `envHttpHeaders` from this process's environment, then the bearer
 * token (read at each connect). Throws when `bearerTokenEnvVar` names an unset variable.
 */
function httpHeaders(config: McpServerConfig): Record<string, string> {
  const headers: Record<string, string> = { ...config.httpHeaders };
  // Codex `env_http_headers`: an unset or blank variable sends no header (as Codex does).
  for (const [header, variable] of Object.entries(config.envHttpHeaders ?? {})) {
    const value = process.env[variable];
    if (value !== undefined && value.trim() !== "") setHeader(headers, header, value);
  }
  if (config.bearerTokenEnvVar !== undefined) {
    const token = process.env[config.bearerTokenEnvVar];
    if (!token) throw new Error(`environment variable ${config.bearerTokenEnvVar} (bearer_token_env_var) is not set`);
    setHeader(headers, "Authorization", `Bearer ${token}`);
  }
  return headers;
}

/** Header names are case-insensitive: a later setting replaces an earlier one, whatever its case. */
function setHeader(headers: Record<string, string>, name: string, value: string): void {
  const lower = name.toLowerCase();
  for (const key of Object.keys(headers)) if (key.toLowerCase() === lower) Reflect.deleteProperty(headers, key);
  headers[name] = value;
}

/** A Streamable HTTP POST refused the way legacy SSE-only servers refuse it (4xx). */
function isLegacyTransportRefusal(err: unknown): boolean {
  const code = isRecord(err) ? err["code"] : undefined;
  return typeof code === "number" && code >= 400 && code < 500 && code !== 401 && code !== 403;
}
