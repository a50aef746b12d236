import { randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createMcpServer, McpToolService } from "../server/index.js";
import { errorMessage } from "../util/index.js";
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
  /** HTTP: sessions at once (default 64). */
  maxSessions?: string | undefined;
  /** HTTP: how long a session may be idle before it is closed, in ms (default 10 min). */
  sessionIdleMs?: string | undefined;
}

interface HttpOptions {
  port: number;
  token: string;
  maxSessions: number;
  idleMs: number;
  version: string;
  logger: Logger;
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

function httpOptions(opts: ServeMcpOptions & { version: string }, port: number, logger: Logger): HttpOptions {
  const token = opts.token ?? envToken() ?? randomBytes(24).toString("base64url");
  if (token === "") throw new ConfigError("--token: the bearer token must not be empty");
  return {
    port,
    token,
    maxSessions: parseCount("--max-sessions", opts.maxSessions, 64, 100_000),
    idleMs: parseCount("--session-idle-ms", opts.sessionIdleMs, 600_000, 2 ** 31 - 1),
    version: opts.version,
    logger,
    printToken: opts.token === undefined && envToken() === undefined,
  };
}

/** `TOOLCALL_MCP_TOKEN`, unless unset or empty. */
const envToken = (): string | undefined => process.env["TOOLCALL_MCP_TOKEN"] || undefined;

/** `http://127.0.0.1:PORT`, `http://localhost`, `https://[::1]:PORT`: a page served from this machine. */
function isLoopbackOrigin(origin: string): boolean {
  try {
    const { hostname, protocol } = new URL(origin);
    return (
      (protocol === "http:" || protocol === "https:") &&
      (hostname === "127.0.0.1" || hostname === "localhost" || hostname === "[::1]")
    );
  } catch {
    return false;
  }
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer (.+)$/i.exec(header ?? "");
  if (!m) return false;
  const given = Buffer.from(m[1] as string);
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function jsonError(res: ServerResponse, status: number, code: number, message: string, headers = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}

/** One MCP session over HTTP: closed when idle for `idleMs` with no request in flight. */
interface HttpSession {
  transport: StreamableHTTPServerTransport;
  inFlight: number;
  idle: NodeJS.Timeout | undefined;
}

/**
 * Streamable HTTP on 127.0.0.1: one MCP session (transport + server) per client, at `/mcp`.
 * Every request needs the bearer token (401), a browser page from elsewhere is refused (403:
 * the MCP specification's DNS-rebinding rule), sessions are capped (503) and expire when idle.
 */
async function serveHttp(service: McpToolService, opts: HttpOptions): Promise<() => Promise<void>> {
  const sessions = new Map<string, HttpSession>();
  let allowedHosts: string[] = [];

  const expireLater = (session: HttpSession): void => {
    session.idle = setTimeout(() => {
      opts.logger.info({ sessionId: session.transport.sessionId, idleMs: opts.idleMs }, "MCP session expired");
      void session.transport.close();
    }, opts.idleMs).unref();
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/mcp") {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found: the MCP endpoint is /mcp\n");
      return;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !isLoopbackOrigin(origin)) {
      jsonError(res, 403, -32000, `Forbidden: origin ${origin} is not this machine`);
      return;
    }
    if (!tokenMatches(req.headers.authorization, opts.token)) {
      jsonError(res, 401, -32000, "Unauthorized: send Authorization: Bearer <token>", {
        "www-authenticate": 'Bearer realm="toolcall"',
      });
      return;
    }
    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const existing = sessions.get(sessionId);
      if (!existing) {
        jsonError(res, 404, -32001, "Session not found");
        return;
      }
      clearTimeout(existing.idle);
      existing.inFlight++;
      try {
        await existing.transport.handleRequest(req, res);
      } finally {
        // A GET stream stays open for the session's life: idle time counts once it ends.
        if (--existing.inFlight === 0 && sessions.has(sessionId)) expireLater(existing);
      }
      return;
    }
    if (sessions.size >= opts.maxSessions) {
      jsonError(res, 503, -32000, `Too many sessions (${opts.maxSessions}): close one or wait for one to expire`);
      return;
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        const session: HttpSession = { transport, inFlight: 0, idle: undefined };
        sessions.set(id, session);
        expireLater(session);
      },
      enableDnsRebindingProtection: true,
      allowedHosts,
    });
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id === undefined) return;
      clearTimeout(sessions.get(id)?.idle);
      sessions.delete(id);
    };
    await createMcpServer(service, { version: opts.version }).connect(transport);
    await transport.handleRequest(req, res);
    // Anything but an initialize request leaves no session behind.
    if (!transport.sessionId) await transport.close();
  }

  const http = createHttpServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(`internal error: ${errorMessage(err)}\n`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(opts.port, "127.0.0.1", () => {
      resolve();
    });
  });
  const bound = (http.address() as AddressInfo).port;
  allowedHosts = [`127.0.0.1:${bound}`, `localhost:${bound}`];
  // Generated: the client needs it, and only whoever started us sees stderr.
  if (opts.printToken) process.stderr.write(`toolcall serve-mcp: bearer token: ${opts.token}\n`);
  process.stderr.write(`toolcall serve-mcp: listening on http://127.0.0.1:${bound}/mcp\n`);
  return async () => {
    for (const { transport } of [...sessions.values()]) await transport.close();
    http.closeAllConnections();
    await new Promise<void>((resolve) =>
      http.close(() => {
        resolve();
      }),
    );
  };
}

/**
 * `toolcall serve-mcp`: runs until SIGINT/SIGTERM, or (stdio) until the client closes stdin.
 */
export async function runServeMcp(opts: ServeMcpOptions & { version: string }): Promise<number> {
  const port = opts.http !== undefined ? parsePort(opts.http) : undefined;
  if (port === undefined) {
    const flag = [
      ["--token", opts.token],
      ["--max-sessions", opts.maxSessions],
      ["--session-idle-ms", opts.sessionIdleMs],
    ].find(([, v]) => v !== undefined)?.[0];
    if (flag !== undefined) throw new ConfigError(`${flag}: only with --http (stdio has one client and no sessions)`);
  }
  const logger = stderrLogger(opts.logLevel);
  const http = port !== undefined ? httpOptions(opts, port, logger) : undefined;
  let service: McpToolService | undefined;
  const session = await openSession({
    ...opts,
    logger,
    onEvent: (event) => service?.onEvent(event),
    // Approvals go to the client that made the call, by elicitation when it supports it.
    approve: (req, signal) => service?.approve(req, signal) ?? Promise.resolve(undefined),
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
      stopTransport = await serveHttp(service, http).catch((err: unknown) => {
        throw new ConfigError(`--http: cannot listen on 127.0.0.1:${http.port}: ${errorMessage(err)}`);
      });
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
    stopHandlingSignals();
  }
}
