import { randomUUID } from "node:crypto";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { toMcpContent, toMcpTools, type FunctionCallItem, type CustomToolCallItem, specName } from "../protocol/index.js";
import { FatalToolCallError, ToolCallRuntime } from "../runtime/index.js";
import type { ToolEvent } from "../turn/index.js";
import { ConfigError } from "./config.js";
import { onInterrupt, openSession, type CliSession, type CommonOptions } from "./session.js";

export interface ServeMcpOptions extends CommonOptions {
  /** Serve Streamable HTTP on 127.0.0.1 at this port (0: any free port) instead of stdio. */
  http?: string | undefined;
}

/** Parallel tools whose calls may still mutate (they pass the gate per call): never read-only. */
const MAY_MUTATE = new Set(["shell", "shell_command", "local_shell"]);

/** What a proxied MCP tool reported, to pass on as `notifications/progress`. */
type Progress = { progress: number; total?: number; message?: string };

function failure(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/**
 * The configured tools behind MCP: every `tools/call` runs through one `ToolCallRuntime`
 * (lock, gate, truncation), aborted by the request's cancellation.
 */
export class McpToolService {
  private runtime: ToolCallRuntime;
  /** Progress listeners of running calls, by our call id. */
  private readonly progress = new Map<string, (p: Progress) => void>();

  constructor(private readonly session: CliSession) {
    this.runtime = this.newRuntime();
  }

  private newRuntime(): ToolCallRuntime {
    const max = this.session.config.runtime.maxConcurrency;
    return new ToolCallRuntime(this.session.router, this.session.turn, max !== undefined ? { maxConcurrency: max } : {});
  }

  listTools(): Tool[] {
    const { router } = this.session;
    const specs = router.specs();
    const proxied = this.session.mcp?.listAllTools();
    return toMcpTools(specs).map((tool) => {
      const upstream = proxied?.get(tool.name);
      // A server may opt into parallel calls for tools that write: only its own hint makes one read-only.
      const readOnly = upstream
        ? upstream.annotations?.readOnlyHint === true
        : router.toolSupportsParallel(tool.name) && !MAY_MUTATE.has(tool.name);
      return { ...tool, annotations: { readOnlyHint: readOnly, ...(readOnly ? {} : { destructiveHint: true }) } };
    });
  }

  /** The session's event listener: forwards proxied tools' progress to the caller that asked for it. */
  onEvent(event: ToolEvent): void {
    if (event.type !== "mcp_tool_call_progress") return;
    const { progress, total, message } = event;
    this.progress.get(event.callId)?.({ progress, ...(total !== undefined && { total }), ...(message !== undefined && { message }) });
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    onProgress?: (p: Progress) => void,
  ): Promise<CallToolResult> {
    const spec = this.session.router.specs().find((s) => specName(s.spec) === name)?.spec;
    const callId = `mcp_${randomUUID()}`;
    let item: FunctionCallItem | CustomToolCallItem;
    if (spec?.type === "custom") {
      const input = args["input"];
      if (typeof input !== "string") return failure(`invalid arguments for ${name}: /input must be a string`);
      item = { type: "custom_tool_call", call_id: callId, name, input };
    } else {
      item = { type: "function_call", call_id: callId, name, arguments: JSON.stringify(args) };
    }
    let call;
    try {
      call = this.session.router.buildToolCall(item);
    } catch (err) {
      return failure((err as Error).message);
    }
    if (!call) return failure(`unsupported call: ${name}`);
    // A fatal error aborts the runtime it happened in; later requests get a fresh one.
    if (this.runtime.aborted) this.runtime = this.newRuntime();
    if (onProgress) this.progress.set(callId, onProgress);
    try {
      const outcome = await this.runtime.handleToolCall(call, signal);
      return { content: toMcpContent(outcome.item.output), isError: !outcome.success };
    } catch (err) {
      if (err instanceof FatalToolCallError) return failure(err.message);
      throw err;
    } finally {
      this.progress.delete(callId);
    }
  }

  /** Aborts calls still running (their children are killed). */
  abort(): void {
    this.runtime.abort("server shutting down");
  }
}

function mcpServerFor(service: McpToolService, version: string): Server {
  const server = new Server({ name: "toolcall", version }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: service.listTools() }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const token = request.params._meta?.progressToken;
    const sent: Array<Promise<void>> = [];
    const onProgress =
      token === undefined
        ? undefined
        : (p: Progress) =>
            void sent.push(
              extra
                .sendNotification({ method: "notifications/progress", params: { progressToken: token, ...p } })
                .catch(() => undefined), // the client went away; the call's own result tells the rest
            );
    const result = await service.callTool(request.params.name, request.params.arguments ?? {}, extra.signal, onProgress);
    // Progress after its result is dropped by the client: let every notification go out first.
    await Promise.all(sent);
    return result;
  });
  return server;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new ConfigError(`--http: expected a port in 0..65535, got ${JSON.stringify(value)}`);
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
    await mcpServerFor(service, version).connect(transport);
    await transport.handleRequest(req, res);
    // Anything but an initialize request leaves no session behind.
    if (!transport.sessionId) await transport.close();
  }

  const http = createHttpServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(`internal error: ${(err as Error).message}\n`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(port, "127.0.0.1", () => resolve());
  });
  const bound = (http.address() as AddressInfo).port;
  allowedHosts = [`127.0.0.1:${bound}`, `localhost:${bound}`];
  process.stderr.write(`toolcall serve-mcp: listening on http://127.0.0.1:${bound}/mcp\n`);
  return async () => {
    for (const transport of [...transports.values()]) await transport.close();
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
}

/**
 * `toolcall serve-mcp`: runs until SIGINT/SIGTERM, or (stdio) until the client closes stdin.
 */
export async function runServeMcp(opts: ServeMcpOptions & { version: string }): Promise<number> {
  const port = opts.http !== undefined ? parsePort(opts.http) : undefined;
  let service: McpToolService | undefined;
  const session = await openSession({ ...opts, onEvent: (event) => service?.onEvent(event) });
  service = new McpToolService(session);
  let stopTransport: () => Promise<void>;
  let stopped!: () => void;
  const done = new Promise<void>((resolve) => (stopped = resolve));
  // Before the transport starts: from here on the MCP servers must be closed, never orphaned.
  const stopHandlingSignals = onInterrupt(() => stopped());
  try {
    if (port !== undefined) {
      stopTransport = await serveHttp(service, port, opts.version).catch((err: unknown) => {
        throw new ConfigError(`--http: cannot listen on 127.0.0.1:${port}: ${(err as Error).message}`);
      });
    } else {
      const server = mcpServerFor(service, opts.version);
      const transport = new StdioServerTransport();
      await server.connect(transport);
      process.stdin.once("end", () => stopped());
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
