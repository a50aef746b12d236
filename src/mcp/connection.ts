import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type ClientCapabilities,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitResult,
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  type Progress,
  type ReadResourceResult,
  type ServerCapabilities,
  type ServerNotification,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import type { Logger } from "pino";
import { texts } from "../protocol/index.js";
import { errorMessage, MAX_TIMER_MS, PACKAGE_VERSION, timerDelay } from "../util/index.js";
import { DEFAULT_STARTUP_TIMEOUT_SEC, DEFAULT_TOOL_TIMEOUT_SEC, type McpServerConfig } from "./config.js";
import { oauthFetch, type McpAuthorizationHandler, type OAuthFetch } from "./oauth.js";
import { collectPages } from "./pages.js";
import { REPLY_REJECTED_CODE } from "./stdioTransport.js";
import { connectClient, exitDescription, serverPid, type ClientSession } from "./transport.js";

const DECLINE: ElicitResult = { action: "decline" };

/** Consecutive failed restarts of a dead server before it is given up. */
export const MAX_RESTART_ATTEMPTS = 3;
/** Wait before restart attempt n (the last entry repeats). */
const DEFAULT_RESTART_BACKOFF_MS: readonly number[] = [0, 250, 1_000];

const CLIENT_INFO = { name: "toolcall-runtime", version: PACKAGE_VERSION };

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

/** Which server asks, and a signal aborted when the server cancels its request. */
export interface McpRequestContext {
  server: string;
  signal: AbortSignal;
}

/** Answers a server's `elicitation/create` (form mode); the schema's defaults fill omitted fields. */
export type McpElicitationHandler = (params: ElicitRequest["params"], ctx: McpRequestContext) => Promise<ElicitResult>;
/** Answers a server's `sampling/createMessage` with the embedder's model. */
export type McpSamplingHandler = (
  params: CreateMessageRequest["params"],
  ctx: McpRequestContext,
) => Promise<CreateMessageResult>;

/** What the client offers servers (DESIGN section 14). */
export interface McpClientCallbacks {
  /** Without it every elicitation is answered `{ action: "decline" }`. */
  onElicitation?: McpElicitationHandler | undefined;
  /** Sampling is declared only when this is given. */
  onSampling?: McpSamplingHandler | undefined;
  /** The roots now (absolute paths), read at each `roots/list`. */
  roots(): readonly string[];
  /** Shows a person the URL that authorizes a server (OAuth authorization code flow). */
  onAuthorizationUrl?: McpAuthorizationHandler | undefined;
  /** Where OAuth tokens are kept; default `$TOOLCALL_HOME`. */
  oauthHome?: string | undefined;
  /** The server's other notifications (log messages, resource updates), for a proxy to pass on. */
  onNotification?: ((server: string, notification: ServerNotification) => void) | undefined;
}

/**
 * One running tools/call: its deadline and its cancellation, in one object per call.
 *
 * The deadline is run here rather than by the SDK so it can pause: progress re-arms it, and it
 * waits while the server asks a person (elicitation) or a model (sampling).
 *
 * The SDK gets the object as the request's `AbortSignal` and reads only `aborted`, `reason`,
 * `throwIfAborted` and one `abort` listener (which sends `notifications/cancelled`): a real
 * AbortController and its listener cost about 8 µs of CPU per call (bench `mcp`), and most
 * calls are never aborted. test/mcp/cancellation.test.ts checks that an abort still reaches the
 * server.
 */
class PendingCall {
  aborted = false;
  reason: unknown;
  /** Aborted by the caller, not by the deadline. */
  cancelled = false;
  private listener: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly ms: number) {}

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

  cancel(reason: unknown): void {
    if (!this.aborted) this.cancelled = true;
    this.abort(reason);
  }

  /** (Re)starts the deadline; `refresh` re-arms without a new timer. */
  arm(): void {
    if (this.timer) this.timer.refresh();
    else this.timer = setTimeout(expire, timerDelay(this.ms), this);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  timedOut(): McpCallError {
    return new McpCallError(texts.mcpTimedOut("tools/call", this.ms), true);
  }
}

/** A module-level timer callback: no closure per call. */
function expire(call: PendingCall): void {
  call.abort(call.timedOut());
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
  private readonly callbacks: McpClientCallbacks;
  /** Deadlines of running calls, paused while `asking` > 0. */
  private readonly deadlines = new Set<PendingCall>();
  /** Server requests (elicitation, sampling) being answered now. */
  private asking = 0;
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
      fetch: this.oauth?.fetch,
    });
    this.watch(session);
    this.tools = await this.listTools(session.client, signal);
    return session;
  }

  private newClient(): Client {
    const { onElicitation, onSampling } = this.callbacks;
    const capabilities: ClientCapabilities = {
      // Always declared: without a callback the answer is a decline, never -32601.
      elicitation: { form: { applyDefaults: true } },
      roots: { listChanged: true },
      ...(onSampling && { sampling: {} }),
    };
    const client = new Client(CLIENT_INFO, { capabilities });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.refreshTools());
    const { onNotification } = this.callbacks;
    if (onNotification) {
      for (const schema of [LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema]) {
        client.setNotificationHandler(schema, (n) => {
          onNotification(this.name, n);
        });
      }
    }
    client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
      this.answer(async () =>
        onElicitation ? onElicitation(request.params, { server: this.name, signal: extra.signal }) : DECLINE,
      ),
    );
    if (onSampling) {
      client.setRequestHandler(CreateMessageRequestSchema, (request, extra) =>
        this.answer(() => onSampling(request.params, { server: this.name, signal: extra.signal })),
      );
    }
    client.setRequestHandler(ListRootsRequestSchema, () => ({
      roots: this.callbacks.roots().map((p) => ({ uri: pathToFileURL(p).href, name: path.basename(p) || p })),
    }));
    return client;
  }

  /** Runs a server request's answer with every call's deadline paused. */
  private async answer<T>(run: () => Promise<T>): Promise<T> {
    if (this.asking++ === 0) for (const d of this.deadlines) d.stop();
    try {
      return await run();
    } finally {
      if (--this.asking === 0) for (const d of this.deadlines) d.arm();
    }
  }

  /** Tells the server the roots changed (`notifications/roots/list_changed`); it then asks for them. */
  async rootsChanged(): Promise<void> {
    await this.session?.client.sendRootsListChanged().catch((err: unknown) => {
      this.logger.debug({ err, server: this.name }, "roots/list_changed not sent");
    });
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
  private explain(err: unknown, what: string, timeoutMs: number, aborted: boolean): McpCallError {
    if (err instanceof McpCallError) return err;
    // The SDK rejects an aborted request with a RequestTimeout error too.
    if (aborted) return new McpCallError(`${what} aborted`);
    if (err instanceof McpError && err.code === (ErrorCode.RequestTimeout as number)) {
      return new McpCallError(texts.mcpTimedOut(what, timeoutMs), true);
    }
    if (err instanceof McpError && err.code === REPLY_REJECTED_CODE && typeof err.data === "string") {
      return new McpCallError(err.data);
    }
    if (err instanceof McpError && err.code === (ErrorCode.ConnectionClosed as number) && this.deathReason) {
      return new McpCallError(`MCP server '${this.name}' exited during ${what} (${this.deathReason})`);
    }
    return new McpCallError(errorMessage(err));
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
    const options: RequestOptions = {
      // The SDK reads only what PendingCall has (see there).
      signal: call as unknown as AbortSignal,
      timeout: MAX_TIMER_MS, // the call's own deadline rules
      // Always asked for: without a progress token the server cannot reset the call's deadline.
      onprogress: (p) => {
        if (this.asking === 0) call.arm();
        onProgress?.(p);
      },
    };
    this.deadlines.add(call);
    if (this.asking === 0) call.arm();
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
    call.stop();
    this.deadlines.delete(call);
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
    this.closed = true;
    this.closing.abort();
    this.oauth?.close();
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
