import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  McpError,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  type Progress,
  type ReadResourceResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import { DEFAULT_STARTUP_TIMEOUT_SEC, DEFAULT_TOOL_TIMEOUT_SEC, type McpServerConfig } from "./config.js";
import { ProcessGroupStdioTransport } from "./stdioTransport.js";

/** Pages of one list request followed before giving up (a server that never ends a listing). */
export const MAX_LIST_PAGES = 1_000;
/** Consecutive failed restarts of a dead server before it is given up. */
export const MAX_RESTART_ATTEMPTS = 3;
/** Wait before restart attempt n (the last entry repeats). */
export const DEFAULT_RESTART_BACKOFF_MS: readonly number[] = [0, 250, 1_000];

const CLIENT_INFO = { name: "toolcall-runtime", version: "0.1.0" };

export interface CallOptions {
  signal?: AbortSignal;
  /** Overrides the server's `toolTimeoutSec`. */
  timeoutMs?: number;
  onProgress?: (progress: Progress) => void;
}

/** A model-facing failure of an MCP request (becomes `tool call error: ...` / the timeout text). */
export class McpCallError extends Error {
  constructor(
    message: string,
    readonly timedOut = false,
  ) {
    super(message);
    this.name = "McpCallError";
  }
}

/** Always asked for: without a progress token the server cannot reset the call's timeout. */
const ignoreProgress = (): void => undefined;

export const formatSeconds = (ms: number): string => String(Math.round(ms) / 1000);

/**
 * Follows `nextCursor` until the listing ends. A cursor seen before or a listing past
 * `MAX_LIST_PAGES` pages stops it, keeping what was collected (logged).
 */
export async function collectPages<T>(
  what: string,
  fetchPage: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | undefined }>,
  logger: Logger,
): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= MAX_LIST_PAGES) {
      logger.warn({ what, pages: page }, "MCP listing exceeded the page cap; keeping the pages read");
      return items;
    }
    const result = await fetchPage(cursor);
    items.push(...result.items);
    const next = result.nextCursor;
    if (next === undefined || next === null || next === "") return items;
    if (seen.has(next)) {
      logger.warn({ what, cursor: next }, "MCP listing returned a duplicate cursor; stopping");
      return items;
    }
    seen.add(next);
    cursor = next;
  }
}

interface Live {
  client: Client;
  transport: Transport;
}

/**
 * One MCP server: one SDK client over stdio or Streamable HTTP (SSE fallback), its tool
 * list, and the restart of a server that died.
 */
export class McpConnection {
  tools: Tool[] = [];
  private live: Live | undefined;
  /** Set when the connection ended without `close()`; the next request restarts. */
  private deathReason: string | undefined;
  private restarting: Promise<Live> | undefined;
  private failedRestarts = 0;
  private closed = false;
  /** Aborted by `close()`: ends a restart's backoff wait at once. */
  private readonly closing = new AbortController();
  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;
  /** Connections still starting, so `close()` can end them too. */
  private readonly opening = new Set<{ live?: Live }>();

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly logger: Logger,
    private readonly onToolsChanged: () => void,
    private readonly restartBackoffMs: readonly number[] = DEFAULT_RESTART_BACKOFF_MS,
  ) {
    this.allowed = toolFilter(config);
  }

  /** `enabled_tools` / `disabled_tools`, checked at listing and again at call time. */
  readonly allowed: (tool: string) => boolean;

  get toolTimeoutMs(): number {
    return (this.config.toolTimeoutSec ?? DEFAULT_TOOL_TIMEOUT_SEC) * 1000;
  }

  /** The stdio server's process id (process group leader), while it runs. */
  get pid(): number | undefined {
    const t = this.live?.transport;
    return t instanceof ProcessGroupStdioTransport ? t.pid : undefined;
  }

  /** initialize + the first full `tools/list`, under `startupTimeoutSec`. */
  async start(): Promise<void> {
    if (this.closed) throw new Error("connection manager closed during start-up");
    const seconds = this.config.startupTimeoutSec ?? DEFAULT_STARTUP_TIMEOUT_SEC;
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const opened: { live?: Live } = {};
    this.opening.add(opened);
    const attempt = this.open(controller.signal, opened);
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new Error(`timed out after ${seconds}s waiting for initialize and tools/list`));
      }, seconds * 1000);
    });
    try {
      const live = await Promise.race([attempt, deadline]);
      if (this.closed) {
        await live.client.close().catch(() => undefined);
        throw new Error("connection manager closed during start-up");
      }
      this.live = live;
      this.deathReason = undefined;
    } catch (err) {
      attempt.catch(() => undefined); // settles later once the transport is closed
      if (opened.live) await opened.live.client.close().catch(() => undefined);
      throw err;
    } finally {
      clearTimeout(timer);
      this.opening.delete(opened);
    }
  }

  private async open(signal: AbortSignal, opened: { live?: Live }): Promise<Live> {
    const live = await this.connect(signal, opened);
    this.tools = await this.listTools(live.client, signal);
    return live;
  }

  private newClient(): Client {
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.refreshTools());
    return client;
  }

  private async connect(signal: AbortSignal, opened: { live?: Live }): Promise<Live> {
    const { config } = this;
    if (config.command !== undefined) {
      const env = serverEnv(config);
      const launch = { command: config.command, ...(config.args && { args: config.args }), ...(env && { env }), ...(config.cwd && { cwd: config.cwd }) };
      const transport = new ProcessGroupStdioTransport(launch);
      const client = this.newClient();
      opened.live = { client, transport };
      try {
        await client.connect(transport, { signal });
      } catch (err) {
        const exit = transport.exitDescription();
        throw exit ? new Error(`${(err as Error).message} (${exit})`) : err;
      }
      return this.watch(opened.live);
    }
    const url = new URL(config.url as string);
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
    const streamable = { client: this.newClient(), transport: new StreamableHTTPClientTransport(url, { requestInit: { headers } }) };
    opened.live = streamable;
    try {
      await streamable.client.connect(streamable.transport, { signal });
      return this.watch(streamable);
    } catch (err) {
      if (signal.aborted || !isLegacyTransportRefusal(err)) throw err;
      await streamable.client.close().catch(() => undefined);
      this.logger.info({ server: this.name }, "MCP server refused Streamable HTTP; falling back to SSE");
    }
    const sse = { client: this.newClient(), transport: new SSEClientTransport(url, { requestInit: { headers } }) };
    opened.live = sse;
    await sse.client.connect(sse.transport, { signal });
    return this.watch(sse);
  }

  private watch(live: Live): Live {
    live.client.onclose = () => {
      if (this.closed || this.live !== live) return;
      const t = live.transport;
      this.deathReason = (t instanceof ProcessGroupStdioTransport ? t.exitDescription() : undefined) ?? "connection closed";
      this.live = undefined;
      this.logger.warn({ server: this.name, reason: this.deathReason }, "MCP server connection ended");
    };
    live.client.onerror = (err) => this.logger.debug({ err, server: this.name }, "MCP transport error");
    return live;
  }

  private async listTools(client: Client, signal?: AbortSignal): Promise<Tool[]> {
    return collectPages(
      `tools/list ${this.name}`,
      async (cursor) => {
        const r = await client.listTools(cursor === undefined ? {} : { cursor }, { ...(signal && { signal }), timeout: this.toolTimeoutMs });
        return { items: r.tools, nextCursor: r.nextCursor };
      },
      this.logger,
    );
  }

  /** `notifications/tools/list_changed`: re-list (coalescing bursts) and tell the manager. */
  refreshTools(): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = true;
      return this.refreshing;
    }
    const run = async (): Promise<void> => {
      do {
        this.refreshAgain = false;
        const live = this.live;
        if (!live) return;
        try {
          this.tools = await this.listTools(live.client);
          this.onToolsChanged();
        } catch (err) {
          this.logger.warn({ err, server: this.name }, "refreshing MCP tools failed; keeping the previous list");
        }
      } while (this.refreshAgain);
    };
    this.refreshing = run().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /** The live client; a server that died is restarted (bounded attempts, backoff). */
  private async client(): Promise<Client> {
    if (this.closed) throw new McpCallError(`MCP server '${this.name}' is closed`);
    if (this.live) return this.live.client;
    this.restarting ??= this.restart().finally(() => (this.restarting = undefined));
    return (await this.restarting).client;
  }

  private async restart(): Promise<Live> {
    if (this.failedRestarts >= MAX_RESTART_ATTEMPTS) {
      throw new McpCallError(
        `MCP server '${this.name}' is not running and ${MAX_RESTART_ATTEMPTS} restarts failed (${this.deathReason ?? "unknown reason"})`,
      );
    }
    const backoff = this.restartBackoffMs;
    const delay = backoff[Math.min(this.failedRestarts, backoff.length - 1)] ?? 0;
    if (delay > 0) await sleep(delay, undefined, { signal: this.closing.signal }).catch(() => undefined);
    if (this.closed) throw new McpCallError(`MCP server '${this.name}' is closed`);
    this.logger.info({ server: this.name, attempt: this.failedRestarts + 1 }, "restarting MCP server");
    try {
      await this.start();
    } catch (err) {
      this.failedRestarts++;
      this.deathReason = (err as Error).message;
      throw new McpCallError(`MCP server '${this.name}' died and could not be restarted: ${(err as Error).message}`);
    }
    this.failedRestarts = 0;
    this.onToolsChanged();
    if (!this.live) throw new McpCallError(`MCP server '${this.name}' died during restart`);
    return this.live;
  }

  /** Turns SDK errors into the model-facing message. */
  private explain(err: unknown, what: string, timeoutMs: number, signal: AbortSignal | undefined): McpCallError {
    if (err instanceof McpCallError) return err;
    // The SDK rejects an aborted request with a RequestTimeout error too.
    if (signal?.aborted) return new McpCallError(`${what} aborted`);
    if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) {
      return new McpCallError(`timed out awaiting ${what} after ${formatSeconds(timeoutMs)}s`, true);
    }
    if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed && this.deathReason) {
      return new McpCallError(`MCP server '${this.name}' exited during ${what} (${this.deathReason})`);
    }
    return new McpCallError(err instanceof Error ? err.message : String(err));
  }

  /** The hot path: no extra awaits or closures while the server runs. */
  callTool(tool: string, args: Record<string, unknown> | undefined, opts: CallOptions = {}): Promise<CallToolResult> {
    const timeoutMs = opts.timeoutMs ?? this.toolTimeoutMs;
    const params = args === undefined ? { name: tool } : { name: tool, arguments: args };
    const options = { signal: opts.signal, timeout: timeoutMs, resetTimeoutOnProgress: true, onprogress: opts.onProgress ?? ignoreProgress };
    const live = this.live; // unset once closed or dead: then client() says why or restarts
    const result = live ? live.client.callTool(params, undefined, options) : this.client().then((c) => c.callTool(params, undefined, options));
    return (result as Promise<CallToolResult>).catch((err: unknown) => {
      throw this.explain(err, "tools/call", timeoutMs, opts.signal);
    });
  }

  /**
   * The SDK adds an abort listener per request and never removes it; a listing follows many
   * pages under one signal, so each request gets its own signal, unlinked when it settles.
   */
  private async request<T>(what: string, signal: AbortSignal | undefined, run: (c: Client, o: { signal?: AbortSignal; timeout: number }) => Promise<T>): Promise<T> {
    const timeout = this.toolTimeoutMs;
    const own = signal && new AbortController();
    const forward = (): void => own?.abort(signal?.reason);
    if (signal?.aborted) forward();
    else signal?.addEventListener("abort", forward, { once: true });
    try {
      return await run(await this.client(), { signal: own?.signal, timeout });
    } catch (err) {
      throw this.explain(err, what, timeout, signal);
    } finally {
      signal?.removeEventListener("abort", forward);
    }
  }

  listResources(cursor?: string, signal?: AbortSignal): Promise<ListResourcesResult> {
    return this.request("resources/list", signal, (c, o) => c.listResources(cursor === undefined ? {} : { cursor }, o));
  }

  listResourceTemplates(cursor?: string, signal?: AbortSignal): Promise<ListResourceTemplatesResult> {
    return this.request("resources/templates/list", signal, (c, o) => c.listResourceTemplates(cursor === undefined ? {} : { cursor }, o));
  }

  readResource(uri: string, signal?: AbortSignal): Promise<ReadResourceResult> {
    return this.request("resources/read", signal, (c, o) => c.readResource({ uri }, o));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.closing.abort();
    const live = this.live;
    this.live = undefined;
    const starting = [...this.opening].flatMap((o) => (o.live ? [o.live] : []));
    await Promise.all(starting.map((l) => l.client.close().catch(() => undefined)));
    await this.restarting?.catch(() => undefined);
    if (live) await live.client.close().catch((err: unknown) => this.logger.debug({ err, server: this.name }, "MCP close failed"));
  }
}

/** Header names are case-insensitive: a later setting replaces an earlier one, whatever its case. */
function setHeader(headers: Record<string, string>, name: string, value: string): void {
  const lower = name.toLowerCase();
  for (const key of Object.keys(headers)) if (key.toLowerCase() === lower) delete headers[key];
  headers[name] = value;
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

/** `enabled_tools` (when given) minus `disabled_tools`, as sets: checked on every call. */
function toolFilter(config: McpServerConfig): (tool: string) => boolean {
  const enabled = config.enabledTools && new Set(config.enabledTools);
  const disabled = new Set(config.disabledTools);
  return (tool) => (enabled === undefined || enabled.has(tool)) && !disabled.has(tool);
}

/** A Streamable HTTP POST refused the way legacy SSE-only servers refuse it (4xx). */
function isLegacyTransportRefusal(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === "number" && code >= 400 && code < 500 && code !== 401 && code !== 403;
}
