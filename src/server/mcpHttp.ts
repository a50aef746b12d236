import { randomUUID, timingSafeEqual } from "node:crypto";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { defaultLogger } from "../turn/index.js";
import { errorMessage, PACKAGE_VERSION } from "../util/index.js";
import { createMcpServer, type McpToolService } from "./mcpServer.js";

export interface McpHttpOptions {
  /** The bearer token every request must carry (`Authorization: Bearer <token>`); not empty. */
  token: string;
  /** Port on 127.0.0.1 (default 0: any free port; the server says which). */
  port?: number;
  /** Sessions at once (default 64); one more is answered 503. */
  maxSessions?: number;
  /** A session idle this long with no request in flight is closed (default 10 min). */
  sessionIdleMs?: number;
  /** The server version MCP clients see (default the package's). */
  version?: string;
  logger?: Logger;
}

export interface McpHttpServer {
  readonly port: number;
  /** `http://127.0.0.1:PORT/mcp`. */
  readonly url: string;
  /** Closes every session and the listener. */
  close(): Promise<void>;
}

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

/** Options that would quietly switch a guard off (an empty token, no session cap) are refused. */
function checkOptions(opts: McpHttpOptions): void {
  if (typeof opts.token !== "string" || opts.token === "")
    throw new TypeError("serveMcpHttp: token must be a non-empty string");
  const whole = (key: "port" | "maxSessions" | "sessionIdleMs", min: number, max: number): void => {
    const v = opts[key];
    if (v !== undefined && (!Number.isInteger(v) || v < min || v > max)) {
      throw new RangeError(`serveMcpHttp: ${key} must be a whole number in ${min}..${max}, got ${String(v)}`);
    }
  };
  whole("port", 0, 65535);
  whole("maxSessions", 1, 100_000);
  whole("sessionIdleMs", 1, 2 ** 31 - 1);
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
 * Serves a service's tools over MCP Streamable HTTP on 127.0.0.1 (what `toolcall serve-mcp
 * --http` runs): one MCP session (transport + server) per client, at `/mcp`.
 * Every request needs the bearer token (403 without it, and no OAuth challenge), a browser page from elsewhere is refused (403:
 * the MCP specification's DNS-rebinding rule), sessions are capped (503) and expire when idle.
 */
export async function serveMcpHttp(service: McpToolService, opts: McpHttpOptions): Promise<McpHttpServer> {
  checkOptions(opts);
  // Imported here, not with the library: only an HTTP server needs it (see docs/ARCHITECTURE.md, lazy SDK).
  const { StreamableHTTPServerTransport } = await import("@modelcontextprotocol/sdk/server/streamableHttp.js");
  const sessions = new Map<string, HttpSession>();
  let allowedHosts: string[] = [];

  const logger = opts.logger ?? defaultLogger();
  const idleMs = opts.sessionIdleMs ?? 600_000;
  const maxSessions = opts.maxSessions ?? 64;
  const version = opts.version ?? PACKAGE_VERSION;
  const expireLater = (session: HttpSession): void => {
    session.idle = setTimeout(() => {
      logger.info({ sessionId: session.transport.sessionId, idleMs }, "MCP session expired");
      void session.transport.close();
    }, idleMs).unref();
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
    // 403, not 401: MCP clients answer any 401 with OAuth discovery, which this server does not offer.
    if (!tokenMatches(req.headers.authorization, opts.token)) {
      jsonError(res, 403, -32000, "Forbidden: send Authorization: Bearer <token> (this server offers no OAuth)");
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
    if (sessions.size >= maxSessions) {
      jsonError(res, 503, -32000, `Too many sessions (${maxSessions}): close one or wait for one to expire`);
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
    await createMcpServer(service, { version }).connect(transport);
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
    http.listen(opts.port ?? 0, "127.0.0.1", () => {
      resolve();
    });
  });
  const bound = (http.address() as AddressInfo).port;
  allowedHosts = [`127.0.0.1:${bound}`, `localhost:${bound}`];
  return {
    port: bound,
    url: `http://127.0.0.1:${bound}/mcp`,
    close: async () => {
      for (const { transport } of [...sessions.values()]) await transport.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) =>
        http.close(() => {
          resolve();
        }),
      );
    },
  };
}
