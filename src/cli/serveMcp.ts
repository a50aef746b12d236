import { randomBytes } from "node:crypto";
import path from "node:path";
import type { Logger } from "pino";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createMcpServer, McpToolService, serveMcpHttp, type McpHttpOptions } from "../server/index.js";
import { FileJournal } from "../turn/index.js";
import { errorMessage } from "../util/index.js";
import { clientConfig, parseClient, tokenFromFile } from "./clientConfig.js";
import { ConfigError } from "./config.js";
import { sandboxWarning } from "./sandbox.js";
import { onInterrupt, openSession, stderrLogger, type CommonOptions } from "./session.js";

export interface ServeMcpOptions extends CommonOptions {
  /** Serve Streamable HTTP on 127.0.0.1 at this port (0: any free port) instead of stdio. */
  http?: string | undefined;
  /** Modules exporting a tool factory, served beside the built-ins. */
  plugins?: string[] | undefined;
  /** HTTP: the bearer token; else `TOOLCALL_MCP_TOKEN`, else a random one printed to stderr. */
  token?: string | undefined;
  /** HTTP: the token kept in this file (created 0600 once), so it survives restarts. */
  tokenFile?: string | undefined;
  /** Print the config snippet for this client instead of serving. */
  printConfig?: string | undefined;
  /** The arguments the snippet's command passes (everything but `--print-config`). */
  serveArgs?: string[] | undefined;
  /** HTTP: sessions at once (default 64). */
  maxSessions?: string | undefined;
  /** HTTP: how long a session may be idle before it is closed, in ms (default 10 min). */
  sessionIdleMs?: string | undefined;
  /** Journal the calls a client names in `_meta` here (DESIGN section 17). */
  journalDir?: string | undefined;
}

interface HttpOptions extends McpHttpOptions {
  port: number;
  /** The token was generated: say it. */
  printToken: boolean;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535)
    throw new ConfigError(`--http: expected a port in 0..65535, got ${JSON.stringify(value)}`);
  return port;
}

function parseCount(flag: string, value: string | undefined, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > max)
    throw new ConfigError(`${flag}: expected an integer in 1..${max}, got ${JSON.stringify(value)}`);
  return n;
}

async function httpOptions(
  opts: ServeMcpOptions & { version: string },
  port: number,
  logger: Logger,
): Promise<HttpOptions> {
  if (opts.token !== undefined && opts.tokenFile !== undefined)
    throw new ConfigError("--token-file: give --token or --token-file, not both");
  const kept = opts.tokenFile !== undefined ? await tokenFromFile(opts.tokenFile) : undefined;
  const token = opts.token ?? kept ?? envToken() ?? randomBytes(24).toString("base64url");
  if (token === "") throw new ConfigError("--token: the bearer token must not be empty");
  return {
    port,
    token,
    maxSessions: parseCount("--max-sessions", opts.maxSessions, 64, 100_000),
    sessionIdleMs: parseCount("--session-idle-ms", opts.sessionIdleMs, 600_000, 2 ** 31 - 1),
    version: opts.version,
    logger,
    printToken: opts.token === undefined && kept === undefined && envToken() === undefined,
  };
}

/** `TOOLCALL_MCP_TOKEN`, unless unset or empty. */
const envToken = (): string | undefined => process.env["TOOLCALL_MCP_TOKEN"] || undefined;

/**
 * `toolcall serve-mcp`: runs until SIGINT/SIGTERM, or (stdio) until the client closes stdin.
 */
export async function runServeMcp(opts: ServeMcpOptions & { version: string }): Promise<number> {
  if (opts.printConfig !== undefined) {
    process.stdout.write(`${clientConfig(parseClient(opts.printConfig), opts.serveArgs ?? [])}\n`);
    return 0;
  }
  const port = opts.http !== undefined ? parsePort(opts.http) : undefined;
  if (port === undefined) {
    const flag = [
      ["--token", opts.token],
      ["--token-file", opts.tokenFile],
      ["--max-sessions", opts.maxSessions],
      ["--session-idle-ms", opts.sessionIdleMs],
    ].find(([, v]) => v !== undefined)?.[0];
    if (flag !== undefined) throw new ConfigError(`${flag}: only with --http (stdio has one client and no sessions)`);
  }
  const logger = stderrLogger(opts.logLevel);
  const http = port !== undefined ? await httpOptions(opts, port, logger) : undefined;
  const journal = journalIn(opts.journalDir);
  let service: McpToolService | undefined;
  const session = await openSession({
    ...opts,
    logger,
    onEvent: (event) => service?.onEvent(event),
    // Approvals go to the client that made the call, by elicitation when it supports it.
    approve: (req, signal) => service?.approve(req, signal) ?? Promise.resolve(undefined),
    ...(journal && { journal }),
  }).catch(async (err: unknown) => {
    await journal?.close();
    throw err;
  });
  const warning = await sandboxWarning(session.environment);
  if (warning !== undefined) process.stderr.write(`toolcall serve-mcp: ${warning}\n`);
  service = new McpToolService({
    router: session.router,
    turn: session.turn,
    maxConcurrency: session.config.runtime.maxConcurrency,
    proxy: session.mcp, // proxied tools' results and schemas pass through unchanged
  });
  let stopTransport: () => Promise<void>;
  let stopped!: () => void;
  const done = new Promise<void>((resolve) => (stopped = resolve));
  // Before the transport starts: from here on the MCP servers must be closed, never orphaned.
  const stopHandlingSignals = onInterrupt(() => {
    stopped();
  });
  try {
    if (http) {
      const served = await serveMcpHttp(service, http).catch((err: unknown) => {
        throw new ConfigError(`--http: cannot listen on 127.0.0.1:${http.port}: ${errorMessage(err)}`);
      });
      // Generated: the client needs it, and only whoever started us sees stderr.
      if (http.printToken) process.stderr.write(`toolcall serve-mcp: bearer token: ${http.token}\n`);
      process.stderr.write(`toolcall serve-mcp: listening on ${served.url}\n`);
      stopTransport = () => served.close();
    } else {
      const server = createMcpServer(service, { version: opts.version });
      const transport = new StdioServerTransport();
      await server.connect(transport);
      process.stdin.once("end", () => {
        stopped();
      });
      stopTransport = () => server.close();
    }
    await done;
    service.abort();
    await stopTransport();
    return 0;
  } finally {
    await session.close();
    await journal?.close();
    stopHandlingSignals();
  }
}

function journalIn(dir: string | undefined): FileJournal | undefined {
  if (dir === undefined) return undefined;
  try {
    return new FileJournal(path.resolve(dir));
  } catch (err) {
    throw new ConfigError(`--journal: cannot use ${dir}: ${errorMessage(err)}`);
  }
}
