import { randomUUID } from "node:crypto";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createMcpServer, McpToolService } from "../server/index.js";
import { errorMessage } from "../util/index.js";
import { ConfigError } from "./config.js";
import { sandboxWarning } from "./sandbox.js";
import { onInterrupt, openSession, type CommonOptions } from "./session.js";

export interface ServeMcpOptions extends CommonOptions {
  /** Serve Streamable HTTP on 127.0.0.1 at this port (0: any free port) instead of stdio. */
  http?: string | undefined;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535)
    throw new ConfigError(`--http: expected a port in 0..65535, got ${JSON.stringify(value)}`);
  return port;
}

/** Streamable HTTP on 127.0.0.1: one MCP session (transport + server) per client, at `/mcp`. */
async function serveHttp(service: McpToolService, port: number, version: string): Promise<() => Promise<void>> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  let allowedHosts: string[] = [];

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/mcp") {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found: the MCP endpoint is /mcp\n");
      return;
    }
    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const existing = transports.get(sessionId);
      if (!existing) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
        return;
      }
      await existing.handleRequest(req, res);
      return;
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void transports.set(id, transport),
      enableDnsRebindingProtection: true,
      allowedHosts,
    });
    transport.onclose = () => {
      if (transport.sessionId) transports.delete(transport.sessionId);
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
    http.listen(port, "127.0.0.1", () => {
      resolve();
    });
  });
  const bound = (http.address() as AddressInfo).port;
  allowedHosts = [`127.0.0.1:${bound}`, `localhost:${bound}`];
  process.stderr.write(`toolcall serve-mcp: listening on http://127.0.0.1:${bound}/mcp\n`);
  return async () => {
    for (const transport of [...transports.values()]) await transport.close();
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
  let service: McpToolService | undefined;
  const session = await openSession({
    ...opts,
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
    if (port !== undefined) {
      stopTransport = await serveHttp(service, port, opts.version).catch((err: unknown) => {
        throw new ConfigError(`--http: cannot listen on 127.0.0.1:${port}: ${errorMessage(err)}`);
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
