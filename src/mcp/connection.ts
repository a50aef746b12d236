import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type {
  CallToolResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  Progress,
  ReadResourceResult,
  ServerCapabilities,
  Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import { coalesce, errorMessage, MAX_TIMER_MS, timerDelay } from "../util/index.js";
import { explainMcpError, McpCallError } from "./callError.js";
import { newMcpClient, type McpClientCallbacks } from "./clientRequests.js";
import { DEFAULT_STARTUP_TIMEOUT_SEC, DEFAULT_TOOL_TIMEOUT_SEC, type McpServerConfig } from "./config.js";
import { oauthFetch, type OAuthFetch } from "./oauth.js";
import { collectPages } from "./pages.js";
import { CallDeadlines, PendingCall } from "./pendingCall.js";
import { connectClient, exitDescription, serverPid, type ClientSession } from "./transport.js";

export { McpCallError } from "./callError.js";
export type {
  McpClientCallbacks,
  McpElicitationHandler,
  McpRequestContext,
  McpSamplingHandler,
} from "./clientRequests.js";

/** Consecutive failed restarts of a dead server before it is given up. */
export const MAX_RESTART_ATTEMPTS = 3;
/** Wait before restart attempt n (the last entry repeats). */
const DEFAULT_RESTART_BACKOFF_MS: readonly number[] = [0, 250, 1_000];

export interface CallOptions {
  signal?: AbortSignal | undefined;
  /** The model's call id, for `McpConnectionManager.onToolResult` listeners. */
  callId?: string | undefined;
  /**
   * Instead of `signal`: registers the one listener that cancels the request (the invocation's
   * `onAbort`). No `AbortSignal` is made unless the call is aborted.
   */
  onAbort?: ((listener: (reason: unknown) => void) => void) | undefined;
  /** Overrides the server's `toolTimeoutSec`. */
  timeoutMs?: number | undefined;
  onProgress?: ((progress: Progress) => void) | undefined;
}

export interface McpConnectionOptions {
  name: string;
  config: McpServerConfig;
  logger: Logger;
  client: McpClientCallbacks;
  /** Called once `tools` was replaced: a `list_changed` re-listing or a restart. */
  onToolsChanged: () => void;
  /** Wait before each restart attempt, in ms (the last entry repeats). */
  restartBackoffMs?: readonly number[] | undefined;
}

/** A session being opened, so `close()` can end it before it is ready. */
type Opening = { session?: ClientSession };

/**
 * Where the connection is in its life, in one value so no two fields can disagree: `up` with
 * its session; `down` (not started yet, or the session ended without `close()`: the next
 * request restarts it, one restart at a time, a bounded number of times); `closed`.
 */
type Phase =
  | { kind: "up"; session: ClientSession }
  | {
      kind: "down";
      /** Why the last session ended or the last restart failed; undefined before the first start. */
      reason: string | undefined;
      failedRestarts: number;
      restarting?: Promise<ClientSession> | undefined;
    }
  | { kind: "closed" };

/**
 * One MCP server's client lifecycle (the transport is `connectClient`'s choice): connect and
 * list within the start-up timeout, re-list on `list_changed`, restart a server that died,
 * and turn SDK errors into the model-facing `McpCallError`.
 */
export class McpConnection {
  readonly name: string;
  tools: Tool[] = [];
  private phase: Phase = { kind: "down", reason: undefined, failedRestarts: 0 };
  private readonly config: McpServerConfig;
  private readonly logger: Logger;
  private readonly onToolsChanged: () => void;
  private readonly restartBackoffMs: readonly number[];
  /** Aborted by `close()`: ends a restart's backoff wait at once. */
  private readonly closing = new AbortController();
  private readonly opening = new Set<Opening>();
  private readonly callbacks: McpClientCallbacks;
  private readonly deadlines = new CallDeadlines();
  /** A `url` server's fetch, with OAuth: one per server, so tokens outlive reconnects. */
  private readonly oauth: OAuthFetch | undefined;

  constructor(opts: McpConnectionOptions) {
    this.name = opts.name;
    this.callbacks = opts.client;
    this.oauth =
      opts.config.url === undefined
        ? undefined
        : oauthFetch({
            server: opts.name,
            config: opts.config,
            onAuthorizationUrl: opts.client.onAuthorizationUrl,
            home: opts.client.oauthHome,
            logger: opts.logger,
          });
    this.config = opts.config;
    this.logger = opts.logger;
    this.onToolsChanged = opts.onToolsChanged;
    this.restartBackoffMs = opts.restartBackoffMs ?? DEFAULT_RESTART_BACKOFF_MS;
  }

  private get toolTimeoutMs(): number {
    return (this.config.toolTimeoutSec ?? DEFAULT_TOOL_TIMEOUT_SEC) * 1000;
  }

  private get session(): ClientSession | undefined {
    return this.phase.kind === "up" ? this.phase.session : undefined;
  }

  /** Read after an await: `close()` may have run meanwhile. */
  private get closed(): boolean {
    return this.phase.kind === "closed";
  }

  /** Why the server's session ended, while it is down. */
  private get deathReason(): string | undefined {
    return this.phase.kind === "down" ? this.phase.reason : undefined;
  }

  /** The stdio server's process id (process group leader), while it runs. */
  get pid(): number | undefined {
    const session = this.session;
    return session && serverPid(session.transport);
  }

  /** initialize + the first full `tools/list`, under `startupTimeoutSec`. */
  async start(): Promise<void> {
    if (this.phase.kind === "closed") throw new Error("connection manager closed during start-up");
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
      this.phase = { kind: "up", session };
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
      newClient: (sdkClient) =>
        newMcpClient(sdkClient, this.name, this.callbacks, {
          onToolsListChanged: () => this.refreshTools(),
          paused: (run) => this.deadlines.paused(run),
        }),
      signal,
      onSession: (s) => (opening.session = s),
      logger: this.logger,
      fetch: this.oauth?.fetch,
    });
    this.watch(session);
    this.tools = await this.listTools(session.client, signal);
    return session;
  }

  /** Tells the server the roots changed (`notifications/roots/list_changed`); it then asks for them. */
  async rootsChanged(): Promise<void> {
    await this.session?.client.sendRootsListChanged().catch((err: unknown) => {
      this.logger.debug({ err, server: this.name }, "roots/list_changed not sent");
    });
  }

  private watch(session: ClientSession): void {
    session.client.onclose = () => {
      if (this.session !== session) return; // closed, or an older session
      const reason = exitDescription(session.transport) ?? "connection closed";
      // Up means the last start succeeded: the restart count begins again.
      this.phase = { kind: "down", reason, failedRestarts: 0 };
      this.logger.warn({ server: this.name, reason }, "MCP server connection ended");
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
  readonly refreshTools = coalesce(async () => {
    const session = this.session;
    if (!session) return;
    try {
      this.tools = await this.listTools(session.client);
      this.onToolsChanged();
    } catch (err) {
      this.logger.warn({ err, server: this.name }, "refreshing MCP tools failed; keeping the previous list");
    }
  });

  /** The session's client; a server that died is restarted (bounded attempts, backoff). */
  private async client(): Promise<Client> {
    const phase = this.phase;
    if (phase.kind === "closed") throw new McpCallError(`MCP server '${this.name}' is closed`);
    if (phase.kind === "up") return phase.session.client;
    phase.restarting ??= this.restart(phase).finally(() => (phase.restarting = undefined));
    return (await phase.restarting).client;
  }

  private async restart(down: Extract<Phase, { kind: "down" }>): Promise<ClientSession> {
    if (down.failedRestarts >= MAX_RESTART_ATTEMPTS) {
      throw new McpCallError(
        `MCP server '${this.name}' is not running and ${MAX_RESTART_ATTEMPTS} restarts failed (${down.reason ?? "unknown reason"})`,
      );
    }
    const backoff = this.restartBackoffMs;
    const delay = backoff[Math.min(down.failedRestarts, backoff.length - 1)] ?? 0;
    if (delay > 0) await sleep(delay, undefined, { signal: this.closing.signal }).catch(() => undefined);
    if (this.closed) throw new McpCallError(`MCP server '${this.name}' is closed`);
    this.logger.info({ server: this.name, attempt: down.failedRestarts + 1 }, "restarting MCP server");
    try {
      await this.start();
    } catch (err) {
      const reason = errorMessage(err);
      if (this.phase.kind === "down") {
        this.phase = { kind: "down", reason, failedRestarts: down.failedRestarts + 1 };
      }
      throw new McpCallError(`MCP server '${this.name}' died and could not be restarted: ${reason}`);
    }
    this.onToolsChanged();
    const session = this.session;
    if (!session) throw new McpCallError(`MCP server '${this.name}' died during restart`);
    return session;
  }

  private explain(err: unknown, what: string, timeoutMs: number, aborted: boolean): McpCallError {
    return explainMcpError(err, { server: this.name, what, timeoutMs, aborted, deathReason: this.deathReason });
  }

  /** The hot path: no extra awaits while the server runs. */
  callTool(tool: string, args: Record<string, unknown> | undefined, opts: CallOptions = {}): Promise<CallToolResult> {
    const timeoutMs = opts.timeoutMs ?? this.toolTimeoutMs;
    const params = args === undefined ? { name: tool } : { name: tool, arguments: args };
    const call = new PendingCall(timeoutMs);
    const { signal, onProgress } = opts;
    const fromSignal =
      signal &&
      ((): void => {
        call.cancel(signal.reason);
      });
    if (signal?.aborted) call.cancel(signal.reason);
    else if (fromSignal) signal.addEventListener("abort", fromSignal, { once: true });
    else
      opts.onAbort?.((reason) => {
        call.cancel(reason);
      });
    const deadlines = this.deadlines;
    const options: RequestOptions = {
      // The SDK reads only what PendingCall has (see there).
      signal: call as unknown as AbortSignal,
      timeout: MAX_TIMER_MS, // the call's own deadline rules
      // Always asked for: without a progress token the server cannot reset the call's deadline.
      onprogress: (p) => {
        deadlines.progress(call);
        onProgress?.(p);
      },
    };
    deadlines.start(call);
    const session = this.session; // unset once closed or dead: then client() says why or restarts
    const result = session
      ? session.client.callTool(params, undefined, options)
      : this.client().then((c) => c.callTool(params, undefined, options));
    return (result as Promise<CallToolResult>).then(
      (r) => {
        this.settle(call, signal, fromSignal);
        return r;
      },
      (err: unknown) => {
        this.settle(call, signal, fromSignal);
        throw this.explain(err, "tools/call", timeoutMs, call.cancelled);
      },
    );
  }

  private settle(call: PendingCall, signal: AbortSignal | undefined, fromSignal: (() => void) | undefined): void {
    this.deadlines.end(call);
    if (fromSignal) signal?.removeEventListener("abort", fromSignal);
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
      throw this.explain(err, what, timeout, signal?.aborted === true);
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

  /** What the server declared at initialize (undefined while it is not running). */
  get capabilities(): ServerCapabilities | undefined {
    return this.session?.client.getServerCapabilities();
  }

  /** Any other request, passed on as it is (a proxy forwarding prompts, completions, logging, subscriptions). */
  forward<R>(
    what: string,
    signal: AbortSignal | undefined,
    run: (client: Client, options: RequestOptions) => Promise<R>,
  ): Promise<R> {
    return this.request(what, signal, run);
  }

  async close(): Promise<void> {
    const phase = this.phase;
    this.phase = { kind: "closed" };
    this.closing.abort();
    this.oauth?.close();
    const session = phase.kind === "up" ? phase.session : undefined;
    const starting = [...this.opening].flatMap((o) => (o.session ? [o.session] : []));
    await Promise.all(starting.map((s) => s.client.close().catch(() => undefined)));
    if (phase.kind === "down") await phase.restarting?.catch(() => undefined);
    if (session)
      await session.client.close().catch((err: unknown) => {
        this.logger.debug({ err, server: this.name }, "MCP close failed");
      });
  }
}
