import pLimit from "p-limit";
import type { Logger } from "pino";
import type {
  CallToolResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Tool,
  ToolAnnotations,
} from "@modelcontextprotocol/sdk/types.js";
import type { ConfiguredToolSpec, FunctionToolSpec, JsonSchema } from "../protocol/index.js";
import type { McpToolRef, McpToolSource } from "../registry/index.js";
import { defaultLogger, emitEvent, type ToolEvent } from "../turn/index.js";
import { validateMcpServersConfig, type McpServerConfig, type McpServersConfig } from "./config.js";
import { collectPages, McpCallError, McpConnection, type CallOptions } from "./connection.js";
import { McpHandler } from "./handler.js";
import { qualifyTools } from "./names.js";

export interface McpConnectionManagerOptions {
  logger?: Logger;
  /** Receives `mcp_startup_update` / `mcp_startup_complete`. */
  onEvent?: (event: ToolEvent) => void;
  /** Servers starting at once; default 8. */
  maxParallelStartups?: number;
  /** Wait before each restart attempt of a dead stdio server, in ms; default [0, 250, 1000]. */
  restartBackoffMs?: readonly number[];
}

export interface McpStartupSummary {
  ready: string[];
  failed: Array<{ server: string; error: string }>;
}

/** A listed MCP tool behind its qualified name. */
export interface McpToolInfo {
  server: string;
  /** The raw name the server receives. */
  tool: string;
  spec: FunctionToolSpec;
  annotations?: ToolAnnotations;
  supportsParallel: boolean;
  inputSchema: JsonSchema;
  /** What `resolve` returns, built once per listing rather than per call. */
  ref: Readonly<McpToolRef>;
}

/** `waitForStartup()` rejects with this when a `required` server failed. */
export class McpStartupError extends Error {
  constructor(readonly summary: McpStartupSummary, readonly requiredFailures: Array<{ server: string; error: string }>) {
    super(requiredFailures.map((f) => `required MCP server '${f.server}' failed to start: ${f.error}`).join("; "));
    this.name = "McpStartupError";
  }
}

/** Codex (and the OpenAI API) want `properties` on object schemas; some servers omit it. */
function providerSchema(schema: JsonSchema): JsonSchema {
  return schema["properties"] == null ? { ...schema, properties: {} } : schema;
}

/**
 * Owns one MCP client per configured server (Codex `McpConnectionManager`). `start` returns
 * at once; servers start in parallel and their tools become callable as each one is ready, so
 * a slow or broken server never holds up the others.
 */
export class McpConnectionManager implements McpToolSource {
  readonly handler: McpHandler;
  private readonly connections = new Map<string, McpConnection>();
  private readonly startups = new Map<string, Promise<void>>();
  private readonly ready = new Set<string>();
  private tools = new Map<string, McpToolInfo>();
  /** Tools `enabledTools` / `disabledTools` filter out: never listed, but resolved so a call is refused with the DESIGN text. */
  private disabledTools = new Map<string, Readonly<McpToolRef>>();
  private specs: ConfiguredToolSpec[] = [];
  private readonly summary: Promise<McpStartupSummary>;
  private readonly logger: Logger;

  private constructor(servers: McpServersConfig, private readonly opts: McpConnectionManagerOptions) {
    this.logger = opts.logger ?? defaultLogger();
    this.handler = new McpHandler(this);
    const limit = pLimit(opts.maxParallelStartups ?? 8);
    for (const [name, config] of Object.entries(servers)) {
      if (config.enabled === false) continue;
      const connection = new McpConnection(name, config, this.logger.child({ mcpServer: name }), () => this.rebuildTools(), opts.restartBackoffMs);
      this.connections.set(name, connection);
      this.emit({ type: "mcp_startup_update", server: name, status: "starting" });
      const startup = limit(() => connection.start()).then(
        () => {
          this.ready.add(name);
          this.rebuildTools();
          this.emit({ type: "mcp_startup_update", server: name, status: "ready" });
        },
        (err: unknown) => {
          const error = err instanceof Error ? err.message : String(err);
          this.logger.warn({ server: name, error }, "MCP server failed to start");
          this.emit({ type: "mcp_startup_update", server: name, status: "failed", error });
          throw err;
        },
      );
      startup.catch(() => undefined); // reported through the summary
      this.startups.set(name, startup);
    }
    this.summary = this.summarize();
  }

  /** Validates the config (throws `McpConfigError`) and starts every enabled server. */
  static start(servers: McpServersConfig, opts: McpConnectionManagerOptions = {}): McpConnectionManager {
    return new McpConnectionManager(validateMcpServersConfig(servers), opts);
  }

  private emit(event: Omit<Extract<ToolEvent, { type: "mcp_startup_update" }>, "callId" | "toolName"> | Omit<Extract<ToolEvent, { type: "mcp_startup_complete" }>, "callId" | "toolName">): void {
    emitEvent({ onEvent: this.opts.onEvent, logger: this.logger }, { callId: "", toolName: "", ...event } as ToolEvent);
  }

  private async summarize(): Promise<McpStartupSummary> {
    const summary: McpStartupSummary = { ready: [], failed: [] };
    for (const [server, startup] of this.startups) {
      try {
        await startup;
        summary.ready.push(server);
      } catch (err) {
        summary.failed.push({ server, error: err instanceof Error ? err.message : String(err) });
      }
    }
    this.emit({ type: "mcp_startup_complete", ready: summary.ready, failed: summary.failed });
    return summary;
  }

  /** Resolves when every server is ready or failed; rejects when a `required` one failed. */
  async waitForStartup(): Promise<McpStartupSummary> {
    const summary = await this.summary;
    const required = summary.failed.filter((f) => this.connections.get(f.server)?.config.required === true);
    if (required.length > 0) throw new McpStartupError(summary, required);
    return summary;
  }

  private rebuildTools(): void {
    type Entry = { server: string; tool: string; def: Tool; config: McpServerConfig; allowed: boolean };
    const allowed: Entry[] = [];
    const filtered: Entry[] = [];
    for (const [server, connection] of this.connections) {
      if (!this.ready.has(server)) continue;
      for (const def of connection.tools) {
        const isAllowed = connection.allowed(def.name);
        (isAllowed ? allowed : filtered).push({ server, tool: def.name, def, config: connection.config, allowed: isAllowed });
      }
    }
    // Filtered tools are qualified after every allowed one, so they never change an allowed
    // tool's name or collision hash; they only get names of their own for `resolve`.
    const qualified = qualifyTools([...allowed, ...filtered], (raw) => this.logger.warn({ tool: raw }, "MCP server listed a tool twice"));
    const previous = this.tools;
    const tools = new Map<string, McpToolInfo>();
    const disabled = new Map<string, Readonly<McpToolRef>>();
    for (const [name, { server, tool, def, config, allowed: isAllowed }] of qualified) {
      if (!isAllowed) {
        // No schema: the call must reach the manager, which refuses it with the DESIGN text,
        // rather than fail argument validation. Refusing touches nothing, so it may overlap.
        disabled.set(name, Object.freeze({ server, tool, supportsParallel: true }));
        continue;
      }
      const old = previous.get(name);
      // Keep the same schema object when unchanged so the router's compiled validator is reused.
      const inputSchema =
        old && old.server === server && JSON.stringify(old.inputSchema) === JSON.stringify(def.inputSchema)
          ? old.inputSchema
          : (def.inputSchema as JsonSchema);
      const supportsParallel = def.annotations?.readOnlyHint === true || config.supportsParallelToolCalls === true;
      const spec: FunctionToolSpec = {
        type: "function",
        name,
        description: def.description ?? "",
        parameters: providerSchema(inputSchema),
        strict: false,
      };
      const ref = Object.freeze({ server, tool, inputSchema, supportsParallel });
      tools.set(name, { server, tool, spec, ...(def.annotations && { annotations: def.annotations }), supportsParallel, inputSchema, ref });
    }
    this.tools = tools;
    this.disabledTools = disabled;
    this.specs = [...tools.values()].map((t) => ({ spec: t.spec, supportsParallelToolCalls: t.supportsParallel }));
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
    return this.tools.get(qualifiedName)?.ref ?? this.disabledTools.get(qualifiedName);
  }

  configuredSpecs(): ConfiguredToolSpec[] {
    return this.specs;
  }

  /** Names of the servers configured and enabled (ready or not). */
  serverNames(): string[] {
    return [...this.connections.keys()];
  }

  /** The stdio server's process id while it runs (for supervision and tests). */
  serverPid(server: string): number | undefined {
    return this.connections.get(server)?.pid;
  }

  /** A ready server; a server still starting is awaited. */
  private async connection(server: string): Promise<McpConnection> {
    const connection = this.connections.get(server);
    const startup = this.startups.get(server);
    if (!connection || !startup) throw new McpCallError(`unknown MCP server '${server}'`);
    try {
      await startup;
    } catch (err) {
      throw new McpCallError(`MCP server '${server}' failed to start: ${(err as Error).message}`);
    }
    return connection;
  }

  /**
   * Calls `tool` (its raw name) on `server`; errors are `McpCallError`s with the model-facing
   * text. A ready server is called without awaiting its start-up again (the hot path).
   */
  callTool(server: string, tool: string, args: Record<string, unknown> | undefined, opts: CallOptions = {}): Promise<CallToolResult> {
    const ready = this.ready.has(server) ? this.connections.get(server) : undefined;
    if (ready) return this.callOn(ready, server, tool, args, opts);
    return this.connection(server).then((c) => this.callOn(c, server, tool, args, opts));
  }

  private callOn(connection: McpConnection, server: string, tool: string, args: Record<string, unknown> | undefined, opts: CallOptions): Promise<CallToolResult> {
    if (!connection.allowed(tool)) return Promise.reject(new McpCallError(`tool '${tool}' is disabled for MCP server '${server}'`));
    return connection.callTool(tool, args, opts);
  }

  async listResources(server: string, cursor?: string, signal?: AbortSignal): Promise<ListResourcesResult> {
    return (await this.connection(server)).listResources(cursor, signal);
  }

  async listResourceTemplates(server: string, cursor?: string, signal?: AbortSignal): Promise<ListResourceTemplatesResult> {
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
    page: (c: McpConnection, cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | undefined }>,
  ): Promise<Map<string, T[]>> {
    const servers = [...this.connections.keys()].filter((s) => this.ready.has(s)).sort();
    const results = await Promise.all(
      servers.map(async (server) => {
        try {
          const connection = await this.connection(server);
          return [server, await collectPages(`${what} ${server}`, (cursor) => page(connection, cursor), this.logger)] as const;
        } catch (err) {
          if (!signal?.aborted) this.logger.warn({ err, server }, `${what} failed for MCP server`);
          return undefined;
        }
      }),
    );
    return new Map(results.filter((r): r is readonly [string, T[]] => r !== undefined));
  }

  /** Closes every client and kills each stdio server's process group. */
  async close(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.close()));
  }
}
