import path from "node:path";
import pLimit, { type LimitFunction } from "p-limit";
import type { Logger } from "pino";
import type {
  CallToolResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  ServerNotification,
  Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { texts, type ConfiguredToolSpec } from "../protocol/index.js";
import type { McpToolRef, McpToolSource } from "../registry/index.js";
import { defaultLogger, emitEvent, type ToolEvent } from "../turn/index.js";
import { errorMessage, errorWithCause } from "../util/index.js";
import { validateMcpServersConfig, type McpServerConfig, type McpServersConfig } from "./config.js";
import {
  McpCallError,
  McpConnection,
  type CallOptions,
  type McpClientCallbacks,
  type McpElicitationHandler,
  type McpSamplingHandler,
} from "./connection.js";
import { McpHandler } from "./handler.js";
import { ToolNamer } from "./names.js";
import type { McpAuthorizationHandler } from "./oauth.js";
import { collectPages, type ListPage } from "./pages.js";
import { buildToolTable, toolFilter, type McpToolInfo } from "./tools.js";

export interface McpConnectionManagerOptions {
  logger?: Logger;
  /** Receives `mcp_startup_update` / `mcp_startup_complete`. */
  onEvent?: (event: ToolEvent) => void;
  /** Servers starting at once; default 8. */
  maxParallelStartups?: number;
  /** Wait before each restart attempt of a dead stdio server, in ms; default [0, 250, 1000]. */
  restartBackoffMs?: readonly number[];
  /**
   * Answers a server's elicitation (form mode) — usually by asking a person; each call's
   * timeout waits meanwhile. Elicitation is always declared: without this, servers get
   * `{ action: "decline" }`.
   */
  onElicitation?: McpElicitationHandler;
  /** Answers `sampling/createMessage` with the embedder's model; sampling is declared only when given. */
  onSampling?: McpSamplingHandler;
  /** The roots servers see (`roots/list`); default `[process.cwd()]`. Change them with `setRoots`. */
  roots?: readonly string[];
  /**
   * OAuth (authorization code + PKCE): called with the URL a person opens; the redirect comes
   * back to a loopback listener. Without it, a server that needs a person fails to start with
   * `needs authorization: run toolcall mcp login NAME`.
   */
  onAuthorizationUrl?: McpAuthorizationHandler;
  /** Where OAuth tokens are kept (mode 0600); default `$TOOLCALL_HOME` (`~/.toolcall`). */
  oauthHome?: string;
  /** Servers' log messages and resource updates (what `serve-mcp` passes on to its client). */
  onNotification?: (server: string, notification: ServerNotification) => void;
}

export interface McpStartupSummary {
  ready: string[];
  failed: Array<{ server: string; error: string }>;
}

/** Everything the manager keeps about one configured server (Codex `AsyncManagedClient`). */
interface ServerRecord {
  readonly config: McpServerConfig;
  readonly connection: McpConnection;
  /** `enabledTools` / `disabledTools`, checked at listing and again at call time. */
  readonly allowed: (tool: string) => boolean;
  /** initialize + the first `tools/list`; rejects with the start-up failure. */
  readonly startup: Promise<void>;
  /** Set once `startup` resolved: calls then skip awaiting it (the hot path). */
  ready: boolean;
}

type StartupEvent =
  | Omit<Extract<ToolEvent, { type: "mcp_startup_update" }>, "callId" | "toolName">
  | Omit<Extract<ToolEvent, { type: "mcp_startup_complete" }>, "callId" | "toolName">;

const absolute = (paths: readonly string[]): readonly string[] => Object.freeze(paths.map((p) => path.resolve(p)));

/** `waitForStartup()` rejects with this when a `required` server failed. */
export class McpStartupError extends Error {
  constructor(
    readonly summary: McpStartupSummary,
    readonly requiredFailures: Array<{ server: string; error: string }>,
  ) {
    super(requiredFailures.map((f) => `required MCP server '${f.server}' failed to start: ${f.error}`).join("; "));
    this.name = "McpStartupError";
  }
}

/**
 * Owns one MCP client per configured server (Codex `McpConnectionManager`). `start` returns
 * at once; servers start in parallel and their tools become callable as each one is ready, so
 * a slow or broken server never holds up the others.
 */
export class McpConnectionManager implements McpToolSource {
  readonly handler: McpHandler;
  private readonly servers = new Map<string, ServerRecord>();
  private tools = new Map<string, McpToolInfo>();
  /** Filtered-out tools: resolved, never listed (see `ToolTable.disabled`). */
  private disabledTools = new Map<string, Readonly<McpToolRef>>();
  private specs: ConfiguredToolSpec[] = [];
  /** Qualified names given this session: each keeps pointing at its tool (DESIGN section 14). */
  private readonly namer = new ToolNamer();
  /** `onToolResult` listeners: only serve-mcp's proxy has one, so calls skip this otherwise. */
  private readonly resultListeners = new Set<(callId: string, result: CallToolResult) => void>();
  private readonly notificationListeners = new Set<(server: string, notification: ServerNotification) => void>();
  private readonly summary: Promise<McpStartupSummary>;
  private readonly logger: Logger;
  private roots: readonly string[];
  private readonly callbacks: McpClientCallbacks;

  private constructor(
    servers: McpServersConfig,
    private readonly opts: McpConnectionManagerOptions,
  ) {
    this.logger = opts.logger ?? defaultLogger();
    this.handler = new McpHandler(this);
    this.roots = absolute(opts.roots ?? [process.cwd()]);
    this.callbacks = {
      onElicitation: opts.onElicitation,
      onSampling: opts.onSampling,
      roots: () => this.roots,
      onAuthorizationUrl: opts.onAuthorizationUrl,
      oauthHome: opts.oauthHome,
      onNotification: (server, n) => {
        for (const listener of this.notificationListeners) listener(server, n);
      },
    };
    if (opts.onNotification) this.notificationListeners.add(opts.onNotification);
    const limit = pLimit(opts.maxParallelStartups ?? 8);
    for (const [name, config] of Object.entries(servers)) {
      if (config.enabled !== false) this.servers.set(name, this.startServer(name, config, limit));
    }
    this.summary = this.summarize();
  }

  private startServer(name: string, config: McpServerConfig, limit: LimitFunction): ServerRecord {
    const connection = new McpConnection({
      name,
      config,
      logger: this.logger.child({ mcpServer: name }),
      onToolsChanged: () => {
        this.rebuildTools();
      },
      restartBackoffMs: this.opts.restartBackoffMs,
      client: this.callbacks,
    });
    this.emit({ type: "mcp_startup_update", server: name, status: "starting" });
    const startup = limit(() => connection.start()).then(
      () => {
        record.ready = true;
        this.rebuildTools();
        this.emit({ type: "mcp_startup_update", server: name, status: "ready" });
      },
      (err: unknown) => {
        const error = errorMessage(err);
        this.logger.warn({ server: name, error }, "MCP server failed to start");
        this.emit({ type: "mcp_startup_update", server: name, status: "failed", error });
        throw err;
      },
    );
    startup.catch(() => undefined); // reported through the summary
    const record: ServerRecord = { config, connection, allowed: toolFilter(config), startup, ready: false };
    return record;
  }

  /** Validates the config (throws `McpConfigError`) and starts every enabled server. */
  static start(servers: McpServersConfig, opts: McpConnectionManagerOptions = {}): McpConnectionManager {
    return new McpConnectionManager(validateMcpServersConfig(servers), opts);
  }

  private emit(event: StartupEvent): void {
    emitEvent({ onEvent: this.opts.onEvent, logger: this.logger }, { callId: "", toolName: "", ...event });
  }

  private async summarize(): Promise<McpStartupSummary> {
    const summary: McpStartupSummary = { ready: [], failed: [] };
    for (const [server, { startup }] of this.servers) {
      try {
        await startup;
        summary.ready.push(server);
      } catch (err) {
        summary.failed.push({ server, error: errorWithCause(err) });
      }
    }
    this.emit({ type: "mcp_startup_complete", ready: summary.ready, failed: summary.failed });
    return summary;
  }

  /** Resolves when every server is ready or failed; rejects when a `required` one failed. */
  async waitForStartup(): Promise<McpStartupSummary> {
    const summary = await this.summary;
    const required = summary.failed.filter((f) => this.servers.get(f.server)?.config.required === true);
    if (required.length > 0) throw new McpStartupError(summary, required);
    return summary;
  }

  private rebuildTools(): void {
    const listings = [...this.servers].flatMap(([server, { ready, config, connection, allowed }]) =>
      ready ? [{ server, config, tools: connection.tools, allowed }] : [],
    );
    const table = buildToolTable(listings, this.tools, this.namer, this.logger);
    this.tools = table.tools;
    this.disabledTools = table.disabled;
    this.specs = table.specs;
  }

  /** Every callable tool now, by qualified name. */
  listAllTools(): Map<string, McpToolInfo> {
    return new Map(this.tools);
  }

  /**
   * The tool behind a qualified name. Tools filtered out by `enabledTools` / `disabledTools`
   * resolve too (they are never listed): their calls reach `callTool`, which refuses them with
   * `tool '{tool}' is disabled for MCP server '{server}'` instead of `unsupported call`.
   */
  resolve(qualifiedName: string): McpToolRef | undefined {
    return this.tools.get(qualifiedName) ?? this.disabledTools.get(qualifiedName);
  }

  /** A listed tool as its server described it (output schema, title, annotations), by qualified name. */
  toolDefinition(qualifiedName: string): Tool | undefined {
    return this.tools.get(qualifiedName)?.definition;
  }

  configuredSpecs(): ConfiguredToolSpec[] {
    return this.specs;
  }

  /** Names of the servers configured and enabled (ready or not). */
  serverNames(): string[] {
    return [...this.servers.keys()];
  }

  /** The stdio server's process id while it runs (for supervision and tests). */
  serverPid(server: string): number | undefined {
    return this.servers.get(server)?.connection.pid;
  }

  /** A ready server's record; a server still starting is awaited. */
  private async readyServer(server: string): Promise<ServerRecord> {
    const record = this.servers.get(server);
    if (!record) throw new McpCallError(`unknown MCP server '${server}'`);
    try {
      await record.startup;
    } catch (err) {
      throw new McpCallError(`MCP server '${server}' failed to start: ${errorMessage(err)}`);
    }
    return record;
  }

  private async connection(server: string): Promise<McpConnection> {
    return (await this.readyServer(server)).connection;
  }

  /**
   * Calls `tool` (its raw name) on `server`; errors are `McpCallError`s with the model-facing
   * text. A ready server is called without awaiting its start-up again (the hot path).
   */
  callTool(
    server: string,
    tool: string,
    args: Record<string, unknown> | undefined,
    opts: CallOptions = {},
  ): Promise<CallToolResult> {
    const record = this.servers.get(server);
    if (record?.ready) return this.callOn(record, server, tool, args, opts);
    return this.readyServer(server).then((r) => this.callOn(r, server, tool, args, opts));
  }

  private callOn(
    record: ServerRecord,
    server: string,
    tool: string,
    args: Record<string, unknown> | undefined,
    opts: CallOptions,
  ): Promise<CallToolResult> {
    if (!record.allowed(tool)) return Promise.reject(new McpCallError(texts.mcpToolDisabled(tool, server)));
    const result = record.connection.callTool(tool, args, opts);
    const { callId } = opts;
    if (this.resultListeners.size === 0 || callId === undefined) return result;
    return result.then((r) => {
      for (const listener of this.resultListeners) listener(callId, r);
      return r;
    });
  }

  /**
   * Sees every server result whole, by the call id the handler passed, before the model's
   * flattened form is made: what a lossless proxy (`serve-mcp`) hands its client. Returns the
   * function that stops listening.
   */
  onToolResult(listener: (callId: string, result: CallToolResult) => void): () => void {
    this.resultListeners.add(listener);
    return () => this.resultListeners.delete(listener);
  }

  async listResources(server: string, cursor?: string, signal?: AbortSignal): Promise<ListResourcesResult> {
    return (await this.connection(server)).listResources(cursor, signal);
  }

  async listResourceTemplates(
    server: string,
    cursor?: string,
    signal?: AbortSignal,
  ): Promise<ListResourceTemplatesResult> {
    return (await this.connection(server)).listResourceTemplates(cursor, signal);
  }

  async readResource(server: string, uri: string, signal?: AbortSignal): Promise<ReadResourceResult> {
    return (await this.connection(server)).readResource(uri, signal);
  }

  /** Every resource of every ready server, all pages (a failing server is logged and skipped). */
  listAllResources(signal?: AbortSignal): Promise<Map<string, Resource[]>> {
    return this.gather("resources/list", signal, async (c, cursor) => {
      const r = await c.listResources(cursor, signal);
      return { items: r.resources, nextCursor: r.nextCursor };
    });
  }

  listAllResourceTemplates(signal?: AbortSignal): Promise<Map<string, ResourceTemplate[]>> {
    return this.gather("resources/templates/list", signal, async (c, cursor) => {
      const r = await c.listResourceTemplates(cursor, signal);
      return { items: r.resourceTemplates, nextCursor: r.nextCursor };
    });
  }

  private async gather<T>(
    what: string,
    signal: AbortSignal | undefined,
    page: (c: McpConnection, cursor: string | undefined) => Promise<ListPage<T>>,
  ): Promise<Map<string, T[]>> {
    const servers = [...this.servers].flatMap(([name, record]) => (record.ready ? [name] : [])).sort();
    const results = await Promise.all(
      servers.map(async (server) => {
        try {
          const connection = await this.connection(server);
          return [
            server,
            await collectPages(`${what} ${server}`, (cursor) => page(connection, cursor), this.logger),
          ] as const;
        } catch (err) {
          if (!signal?.aborted) this.logger.warn({ err, server }, `${what} failed for MCP server`);
          return undefined;
        }
      }),
    );
    return new Map(results.filter((r): r is readonly [string, T[]] => r !== undefined));
  }

  /** Replaces the roots and tells every running server (`notifications/roots/list_changed`). */
  async setRoots(paths: readonly string[]): Promise<void> {
    this.roots = absolute(paths);
    await Promise.all([...this.servers.values()].map((r) => r.connection.rootsChanged()));
  }

  /** Listens to servers' log messages and resource updates; returns the function that stops it. */
  onServerNotification(listener: (server: string, notification: ServerNotification) => void): () => void {
    this.notificationListeners.add(listener);
    return () => this.notificationListeners.delete(listener);
  }

  /** What a ready server declared at initialize. */
  serverCapabilities(server: string): ServerCapabilities | undefined {
    const record = this.servers.get(server);
    return record?.ready ? record.connection.capabilities : undefined;
  }

  /**
   * Sends `server` any request through its SDK client (prompts, completions, logging level,
   * subscriptions), with its timeout and errors as `McpCallError`.
   */
  async forward<R>(
    server: string,
    what: string,
    run: (client: Client, options: RequestOptions) => Promise<R>,
    signal?: AbortSignal,
  ): Promise<R> {
    return (await this.connection(server)).forward(what, signal, run);
  }

  /** Closes every client and kills each stdio server's process group. */
  async close(): Promise<void> {
    await Promise.all([...this.servers.values()].map((r) => r.connection.close()));
  }
}
