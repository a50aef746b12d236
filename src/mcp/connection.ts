import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
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
import { texts } from "../protocol/index.js";
import { errorMessage, PACKAGE_VERSION, timerDelay } from "../util/index.js";
import { DEFAULT_STARTUP_TIMEOUT_SEC, DEFAULT_TOOL_TIMEOUT_SEC, type McpServerConfig } from "./config.js";
import { collectPages } from "./pages.js";
import { connectClient, exitDescription, serverPid, type ClientSession } from "./transport.js";

/** Consecutive failed restarts of a dead server before it is given up. */
export const MAX_RESTART_ATTEMPTS = 3;
/** Wait before restart attempt n (the last entry repeats). */
export const DEFAULT_RESTART_BACKOFF_MS: readonly number[] = [0, 250, 1_000];

const CLIENT_INFO = { name: "toolcall-runtime", version: PACKAGE_VERSION };

export interface CallOptions {
  signal?: AbortSignal | undefined;
  /**
   * Instead of `signal`: registers the one listener that cancels the request (the invocation's
   * `onAbort`). No `AbortSignal` is made unless the call is aborted.
   */
  onAbort?: ((listener: (reason: unknown) => void) => void) | undefined;
  /** Overrides the server's `toolTimeoutSec`. */
  timeoutMs?: number | undefined;
  onProgress?: ((progress: Progress) => void) | undefined;
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

/**
 * What the SDK reads of a request's `AbortSignal` (`aborted`, `reason`, `throwIfAborted`, one
 * `abort` listener, which sends `notifications/cancelled`), as a plain object: a real signal
 * and its listener cost about 8 µs of CPU per call (bench `mcp`), and most calls are never
 * aborted. test/mcp/stdio.test.ts checks that an abort still reaches the server.
 */
class RequestCancellation {
  aborted = false;
  reason: unknown;
  private listener: (() => void) | undefined;

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  addEventListener(_type: "abort", listener: () => void): void {
    this.listener = listener;
  }

  removeEventListener(): void {
    this.listener = undefined;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.listener?.();
  }
}

export interface McpConnectionOptions {
  name: string;
  config: McpServerConfig;
  logger: Logger;
  /** Called once `tools` was replaced: a `list_changed` re-listing or a restart. */
  onToolsChanged: () => void;
  /** Wait before each restart attempt, in ms (the last entry repeats). */
  restartBackoffMs?: readonly number[] | undefined;
}

/** A session being opened, so `close()` can end it before it is ready. */
type Opening = { session?: ClientSession };

/**
 * One MCP server's client lifecycle (the transport is `connectClient`'s choice): connect and
 * list within the start-up timeout, re-list on `list_changed`, restart a server that died,
 * and turn SDK errors into the model-facing `McpCallError`.
 */
export class McpConnection {
  readonly name: string;
  tools: Tool[] = [];
  private readonly config: McpServerConfig;
  private readonly logger: Logger;
  private readonly onToolsChanged: () => void;
  private readonly restartBackoffMs: readonly number[];
  private session: ClientSession | undefined;
  /** Set when the session ended without `close()`; the next request restarts. */
  private deathReason: string | undefined;
  private restarting: Promise<ClientSession> | undefined;
  private failedRestarts = 0;
  private closed = false;
  /** Aborted by `close()`: ends a restart's backoff wait at once. */
  private readonly closing = new AbortController();
  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;
  private readonly opening = new Set<Opening>();

  constructor(opts: McpConnectionOptions) {
    this.name = opts.name;
    this.config = opts.config;
    this.logger = opts.logger;
    this.onToolsChanged = opts.onToolsChanged;
    this.restartBackoffMs = opts.restartBackoffMs ?? DEFAULT_RESTART_BACKOFF_MS;
  }

  private get toolTimeoutMs(): number {
    return (this.config.toolTimeoutSec ?? DEFAULT_TOOL_TIMEOUT_SEC) * 1000;
  }

  /** The stdio server's process id (process group leader), while it runs. */
  get pid(): number | undefined {
    return this.session && serverPid(this.session.transport);
  }

  /** initialize + the first full `tools/list`, under `startupTimeoutSec`. */
  async start(): Promise<void> {
    if (this.closed) throw new Error("connection manager closed during start-up");
    const seconds = this.config.startupTimeoutSec ?? DEFAULT_STARTUP_TIMEOUT_SEC;
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const opening: Opening = {};
    this.opening.add(opening);
    const attempt = this.open(controller.signal, opening);
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => {
          controller.abort();
          reject(new Error(`timed out after ${seconds}s waiting for initialize and tools/list`));
        },
        timerDelay(seconds * 1000),
      );
    });
    try {
      const session = await Promise.race([attempt, deadline]);
      if (this.closed) {
        await session.client.close().catch(() => undefined);
        throw new Error("connection manager closed during start-up");
      }
      this.session = session;
      this.deathReason = undefined;
    } catch (err) {
      attempt.catch(() => undefined); // settles later once the transport is closed
      if (opening.session) await opening.session.client.close().catch(() => undefined);
      throw err;
    } finally {
      clearTimeout(timer);
      this.opening.delete(opening);
    }
  }

  private async open(signal: AbortSignal, opening: Opening): Promise<ClientSession> {
    const session = await connectClient(this.name, this.config, {
      newClient: () => this.newClient(),
      signal,
      onSession: (s) => (opening.session = s),
      logger: this.logger,
    });
    this.watch(session);
    this.tools = await this.listTools(session.client, signal);
    return session;
  }

  private newClient(): Client {
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.refreshTools());
    return client;
  }

  private watch(session: ClientSession): void {
    session.client.onclose = () => {
      if (this.closed || this.session !== session) return;
      this.deathReason = exitDescription(session.transport) ?? "connection closed";
      this.session = undefined;
      this.logger.warn({ server: this.name, reason: this.deathReason }, "MCP server connection ended");
    };
    session.client.onerror = (err) => {
      this.logger.debug({ err, server: this.name }, "MCP transport error");
    };
  }

  private listTools(client: Client, signal?: AbortSignal): Promise<Tool[]> {
    const options = { ...(signal && { signal }), timeout: this.toolTimeoutMs };
    return collectPages(
      `tools/list ${this.name}`,
      async (cursor) => {
        const r = await client.listTools(cursor === undefined ? {} : { cursor }, options);
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
        const session = this.session;
        if (!session) return;
        try {
          this.tools = await this.listTools(session.client);
          this.onToolsChanged();
        } catch (err) {
          this.logger.warn({ err, server: this.name }, "refreshing MCP tools failed; keeping the previous list");
        }
      } while (this.refreshAgain);
    };
    this.refreshing = run().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /** The session's client; a server that died is restarted (bounded attempts, backoff). */
  private async client(): Promise<Client> {
    if (this.closed) throw new McpCallError(`MCP server '${this.name}' is closed`);
    if (this.session) return this.session.client;
    this.restarting ??= this.restart().finally(() => (this.restarting = undefined));
    return (await this.restarting).client;
  }

  private async restart(): Promise<ClientSession> {
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
      this.deathReason = errorMessage(err);
      throw new McpCallError(`MCP server '${this.name}' died and could not be restarted: ${this.deathReason}`);
    }
    this.failedRestarts = 0;
    this.onToolsChanged();
    if (!this.session) throw new McpCallError(`MCP server '${this.name}' died during restart`);
    return this.session;
  }

  /** Turns SDK errors into the model-facing message. */
  private explain(
    err: unknown,
    what: string,
    timeoutMs: number,
    signal: { readonly aborted: boolean } | undefined,
  ): McpCallError {
    if (err instanceof McpCallError) return err;
    // The SDK rejects an aborted request with a RequestTimeout error too.
    if (signal?.aborted) return new McpCallError(`${what} aborted`);
    if (err instanceof McpError && err.code === (ErrorCode.RequestTimeout as number)) {
      return new McpCallError(texts.mcpTimedOut(what, timeoutMs), true);
    }
    if (err instanceof McpError && err.code === (ErrorCode.ConnectionClosed as number) && this.deathReason) {
      return new McpCallError(`MCP server '${this.name}' exited during ${what} (${this.deathReason})`);
    }
    return new McpCallError(errorMessage(err));
  }

  /** The hot path: no extra awaits or closures while the server runs. */
  callTool(tool: string, args: Record<string, unknown> | undefined, opts: CallOptions = {}): Promise<CallToolResult> {
    const timeoutMs = opts.timeoutMs ?? this.toolTimeoutMs;
    const params = args === undefined ? { name: tool } : { name: tool, arguments: args };
    const options: RequestOptions = {
      timeout: timeoutMs,
      resetTimeoutOnProgress: true,
      onprogress: opts.onProgress ?? ignoreProgress,
    };
    let cancellation: RequestCancellation | AbortSignal | undefined = opts.signal;
    if (cancellation) options.signal = cancellation;
    else if (opts.onAbort) {
      const own = new RequestCancellation();
      opts.onAbort((reason) => {
        own.abort(reason);
      });
      cancellation = own;
      // The SDK reads only what RequestCancellation has (see there).
      options.signal = own as unknown as AbortSignal;
    }
    const session = this.session; // unset once closed or dead: then client() says why or restarts
    const result = session
      ? session.client.callTool(params, undefined, options)
      : this.client().then((c) => c.callTool(params, undefined, options));
    return (result as Promise<CallToolResult>).catch((err: unknown) => {
      throw this.explain(err, "tools/call", timeoutMs, cancellation);
    });
  }

  /**
   * The SDK adds an abort listener per request and never removes it; a listing follows many
   * pages under one signal, so each request gets its own signal, unlinked when it settles.
   */
  private async request<T>(
    what: string,
    signal: AbortSignal | undefined,
    run: (c: Client, o: RequestOptions) => Promise<T>,
  ): Promise<T> {
    const timeout = this.toolTimeoutMs;
    const own = signal && new AbortController();
    const forward = (): void => own?.abort(signal?.reason);
    if (signal?.aborted) forward();
    else signal?.addEventListener("abort", forward, { once: true });
    try {
      return await run(await this.client(), own ? { signal: own.signal, timeout } : { timeout });
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
    return this.request("resources/templates/list", signal, (c, o) =>
      c.listResourceTemplates(cursor === undefined ? {} : { cursor }, o),
    );
  }

  readResource(uri: string, signal?: AbortSignal): Promise<ReadResourceResult> {
    return this.request("resources/read", signal, (c, o) => c.readResource({ uri }, o));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.closing.abort();
    const session = this.session;
    this.session = undefined;
    const starting = [...this.opening].flatMap((o) => (o.session ? [o.session] : []));
    await Promise.all(starting.map((s) => s.client.close().catch(() => undefined)));
    await this.restarting?.catch(() => undefined);
    if (session)
      await session.client.close().catch((err: unknown) => {
        this.logger.debug({ err, server: this.name }, "MCP close failed");
      });
  }
}
