import path from "node:path";
import type { Logger } from "pino";
import { toResponsesTools } from "../protocol/index.js";
import type { DynamicToolSpec } from "../registry/index.js";
import type { ToolRouter } from "../router/index.js";
import { FatalToolCallError, ToolCallRuntime, type ToolCallOutcome } from "../runtime/index.js";
import { defaultLogger, FileJournal, ReadinessFlag, type ToolEvent, type TurnContext } from "../turn/index.js";
import { errorText, isRecord, PACKAGE_VERSION } from "../util/index.js";
import type { WireFormat } from "../adapters/index.js";

import { FORWARDED, type Forwarded } from "./sidecarForward.js";
import { sidecarFormat, submitInFormat } from "./sidecarFormat.js";
import { OutputDelivery } from "./sidecarOutputs.js";
import { SidecarTurn } from "./sidecarTurn.js";
import { badParam, FollowedBy, JsonRpcError, JsonRpcErrorCode, JsonRpcPeer } from "./jsonRpc.js";

/** `initialize` params: where the session works and which config it loads. */
export interface SidecarInitializeParams {
  cwd?: string;
  /** A config file's path (TOML, or JSON by extension), or the JSON config itself. */
  config?: string | Record<string, unknown>;
  /** The calls' format ("responses", "chat", "anthropic"); absent: detected per submit, as `exec` does. */
  format?: WireFormat;
  /** Send every `ToolEvent` as an `event` notification. */
  events?: boolean;
  /** Tools the client answers itself (`dynamic/call` requests). */
  dynamicTools?: DynamicToolSpec[];
}

/** What `initialize` opens: the session's router and the turn every sidecar turn copies. */
export interface SidecarSession {
  router: ToolRouter;
  turn: TurnContext;
  maxConcurrency?: number | undefined;
  /** Stops what the session started (MCP servers, running commands); called once at shutdown. */
  close(): Promise<void>;
}

export interface SidecarOptions {
  /** Opens the session for `initialize`; throw `JsonRpcError` for a bad param. */
  open(params: SidecarInitializeParams): Promise<SidecarSession>;
  /** Writes one JSON-RPC message (already a JSON text, no newline). */
  send(message: string): void;
  version?: string;
  logger?: Logger;
  /** After the `shutdown` reply is sent (the session is closed by then). */
  onShutdown?: () => void;
}

/** The methods of an open session (`initialize` and `shutdown` aside). */
const SESSION_METHODS: ReadonlySet<string> = new Set([
  "turn/start",
  "turn/resume",
  "turn/submit",
  "turn/drain",
  "turn/abort",
  "call/cancel",
  "session/usage",
]);

/**
 * The JSON-RPC 2.0 sidecar (`toolcall serve --stdio`, DESIGN section 13): one session, many
 * turns; each turn is a `ToolCallRuntime` over the session's router, so MCP servers start
 * once. Outputs stream as `turn/output` notifications in call order; approvals and dynamic
 * tool calls become requests to the client. Transport-free: the caller feeds lines in and
 * writes what `send` gets.
 */
export class SidecarServer {
  private session: SidecarSession | undefined;
  private opening: Promise<SidecarSession> | undefined;
  private events = false;
  private format: WireFormat | undefined;
  private delivery = OutputDelivery.of({});
  private readonly turns = new Map<string, SidecarTurn>();
  /** Journals by directory (`turn/start { journal }`), closed with the session. */
  private readonly journals = new Map<string, FileJournal>();
  private turnCount = 0;
  private closing: Promise<void> | undefined;
  private readonly logger: Logger;
  private readonly peer: JsonRpcPeer;

  constructor(private readonly opts: SidecarOptions) {
    this.logger = opts.logger ?? defaultLogger();
    this.peer = new JsonRpcPeer({
      handle: (method, params) => this.call(method, params),
      send: (message) => {
        opts.send(message);
      },
      logger: this.logger,
      // `shutdown` waits for every other request's reply: it is not one of them.
      uncounted: new Set(["shutdown"]),
      onReplied: (method) => {
        if (method === "shutdown") opts.onShutdown?.();
      },
    });
  }

  /** True once `shutdown` was asked for (or `close` called). */
  get closed(): boolean {
    return this.closing !== undefined;
  }

  /** One line of input: a request, a notification, or the client's reply to our request. */
  handleLine(line: string): void {
    this.peer.handleLine(line);
  }

  /** A request's answer: a value when it is known at once (a submit), else a promise. */
  private call(method: string, params: Record<string, unknown>): unknown {
    if (method === "initialize") return this.initialize(params);
    if (method === "shutdown") return this.close().then(() => ({}));
    if (!SESSION_METHODS.has(method))
      throw new JsonRpcError(JsonRpcErrorCode.MethodNotFound, `Method not found: ${method}`);
    // Requests sent right behind `initialize` wait for it, in order.
    if (!this.session && this.opening) {
      return this.opening.then(
        () => this.inSession(method, params),
        () => this.inSession(method, params),
      );
    }
    return this.inSession(method, params);
  }

  private inSession(method: string, params: Record<string, unknown>): unknown {
    if (!this.session || this.closed) {
      const why = this.closed ? "the server is shutting down" : "call initialize first";
      throw new JsonRpcError(JsonRpcErrorCode.NotInitialized, `Server not initialized: ${why}`);
    }
    const session = this.session;
    if (method === "turn/start") return this.startTurn(session, params);
    if (method === "turn/resume") return this.resumeTurn(session, params);
    // What each tool cost in the session so far (DESIGN section 18).
    if (method === "session/usage") return { tools: session.router.usage() };
    const turn = this.turnOf(params);
    switch (method) {
      case "turn/submit": {
        const item = params["item"];
        if (!isRecord(item) && !Array.isArray(item)) throw badParam("item", "a JSON object or array", item);
        const result = submitInFormat(turn.runtime, item, this.format, turn.formats);
        const { callId } = result;
        if (result.accepted && callId !== undefined && turn.add(result.callIds ?? callId) && turn.ready()) {
          // A call answered inside submit (an error) streams its output right after the reply.
          return new FollowedBy(result, () => {
            this.flush(turn);
          });
        }
        return result;
      }
      case "turn/drain":
        return this.drain(turn);
      case "turn/abort":
        turn.runtime.abort();
        return {};
      default: {
        const callId = params["callId"];
        if (typeof callId !== "string") throw badParam("callId", "a string", callId);
        return { cancelled: turn.runtime.cancel(callId) };
      }
    }
  }

  private async initialize(params: Record<string, unknown>): Promise<unknown> {
    if (this.session || this.opening || this.closed)
      throw new JsonRpcError(JsonRpcErrorCode.InvalidRequest, "already initialized");
    const init: SidecarInitializeParams = {};
    const cwd = params["cwd"];
    if (cwd !== undefined) {
      if (typeof cwd !== "string") throw badParam("cwd", "a directory path", cwd);
      init.cwd = cwd;
    }
    const config = params["config"];
    if (config !== undefined) {
      if (typeof config !== "string" && !isRecord(config)) throw badParam("config", "a file path or an object", config);
      init.config = config;
    }
    const format = sidecarFormat(params["format"]);
    if (format instanceof Error) throw badParam("format", format.message.replace("expected ", ""), params["format"]);
    const events = params["events"];
    if (events !== undefined && typeof events !== "boolean") throw badParam("events", "a boolean", events);
    const dynamicTools = params["dynamicTools"];
    if (dynamicTools !== undefined) {
      if (!Array.isArray(dynamicTools) || !dynamicTools.every(isRecord))
        throw badParam("dynamicTools", "an array of {name, description, inputSchema}", dynamicTools);
      init.dynamicTools = dynamicTools as unknown as DynamicToolSpec[];
    }
    this.delivery = OutputDelivery.of(params);
    const opening = this.opts.open(init);
    this.opening = opening;
    let session: SidecarSession;
    try {
      session = await opening;
    } finally {
      this.opening = undefined;
    }
    // `close` came meanwhile (and waits for this reply): the session is closed here.
    if (this.closed) {
      await session.close();
      throw new JsonRpcError(JsonRpcErrorCode.NotInitialized, "Server not initialized: the server is shutting down");
    }
    this.session = session;
    this.events = events === true;
    this.format = format;
    return { version: this.opts.version ?? PACKAGE_VERSION, tools: toResponsesTools(session.router.specs()) };
  }

  private startTurn(session: SidecarSession, params: Record<string, unknown>): { turnId: string } {
    const given = params["turnId"];
    if (given !== undefined && (typeof given !== "string" || given === "")) throw badParam("turnId", "a string", given);
    const id = given ?? `turn_${++this.turnCount}`;
    if (this.turns.has(id)) throw badParam("turnId", "a turn id not in use", id);
    const { turn, context, runtimeOpts } = this.newTurn(session, id, this.journalOf(params));
    turn.runtime = new ToolCallRuntime(session.router, context, runtimeOpts);
    this.turns.set(id, turn);
    return { turnId: id };
  }

  /**
   * A journaled turn again (DESIGN section 17), e.g. in a sidecar started after the last one
   * died: its journaled outputs stream again in call order, except those the client says it
   * `received`; calls that never started run; a mutating call that was running is answered
   * `interrupted`. Replies with the turn's call ids so far.
   */
  private async resumeTurn(session: SidecarSession, params: Record<string, unknown>): Promise<unknown> {
    const id = params["turnId"];
    if (typeof id !== "string" || id === "") throw badParam("turnId", "a journaled turn's id", id);
    if (this.turns.has(id)) throw badParam("turnId", "a turn id not in use", id);
    const journal = this.journalOf(params);
    if (!journal) throw badParam("journal", "the journal's directory", params["journal"]);
    const received = params["received"] ?? [];
    if (!Array.isArray(received) || !received.every((r) => typeof r === "string"))
      throw badParam("received", "an array of call ids", received);
    const { turn, context, runtimeOpts } = this.newTurn(session, id, journal);
    // Taken before any output can stream: what the journal answers comes out inside `resume`.
    this.turns.set(id, turn);
    try {
      turn.runtime = await ToolCallRuntime.resume(session.router, context, { ...runtimeOpts, turnId: id });
    } catch (err) {
      this.turns.delete(id);
      throw badParam("turnId", `a turn in the journal (${errorText(err) ?? "unreadable"})`, id);
    }
    const calls = turn.runtime.callIds();
    turn.received = new Set(received);
    turn.add(calls);
    return new FollowedBy({ turnId: id, calls }, () => {
      this.flush(turn);
    });
  }

  /** A turn's own gate, listener and outcome stream over the session's turn. */
  private newTurn(session: SidecarSession, id: string, journal: FileJournal | undefined) {
    const turn = new SidecarTurn(id, this.delivery.drainsStreamed);
    const base = session.turn;
    // Its own gate and listener; everything else (cwd, policy, environment) is the session's.
    const context: TurnContext = {
      ...base,
      toolCallGate: new ReadinessFlag(),
      onEvent: base.onEvent
        ? (event) => {
            base.onEvent?.(event);
            this.onEvent(turn, event);
          }
        : (event) => {
            this.onEvent(turn, event);
          },
      ...(journal && { journal }),
    };
    const runtimeOpts = {
      ...(session.maxConcurrency !== undefined && { maxConcurrency: session.maxConcurrency }),
      turnId: id,
      onOutcome: (outcome: ToolCallOutcome) => {
        turn.settle(outcome);
        this.flush(turn);
      },
    };
    return { turn, context, runtimeOpts };
  }

  /** `journal`: a directory; one FileJournal per directory for the session. */
  private journalOf(params: Record<string, unknown>): FileJournal | undefined {
    const dir = params["journal"];
    if (dir === undefined) return undefined;
    if (typeof dir !== "string" || dir === "") throw badParam("journal", "a directory path", dir);
    const resolved = path.resolve(this.session?.turn.cwd ?? process.cwd(), dir);
    let journal = this.journals.get(resolved);
    if (!journal) {
      try {
        journal = new FileJournal(resolved);
      } catch (err) {
        throw badParam("journal", `a directory the sidecar can write (${errorText(err) ?? "unusable"})`, dir);
      }
      this.journals.set(resolved, journal);
    }
    return journal;
  }

  private turnOf(params: Record<string, unknown>): SidecarTurn {
    const id = params["turnId"];
    if (typeof id !== "string") throw badParam("turnId", "a string", id);
    const turn = this.turns.get(id);
    if (!turn) throw badParam("turnId", "a running turn (see turn/start)", id);
    return turn;
  }

  /** Streams the outputs whose every earlier call's went out. */
  private flush(turn: SidecarTurn): void {
    if (!this.delivery.streams) return;
    turn.flush((params) => {
      this.peer.notify("turn/output", params);
    });
  }

  /** Every output in call order once all are in; the turn ends here. */
  private async drain(turn: SidecarTurn): Promise<unknown> {
    if (turn.draining) throw badParam("turnId", "a turn not already draining", turn.id);
    turn.draining = true;
    try {
      const outputs = await turn.runtime.drain();
      this.flush(turn);
      await turn.runtime.endTurn();
      return this.delivery.reply(outputs, (items) => turn.inFormatsText(items));
    } catch (err) {
      if (!(err instanceof FatalToolCallError)) throw err;
      this.flush(turn);
      // The other calls' outputs with the fatal call's own in its place.
      const outputs = turn.inFormats(turn.inOrder([...err.outputs, err.item]));
      return { outputs, fatal: { callId: err.callId, message: err.message } };
    } finally {
      this.turns.delete(turn.id);
      // Requests never answered (the call timed out or was aborted) wait for nothing now.
      for (const id of turn.requests) this.peer.forget(id);
    }
  }

  private onEvent(turn: SidecarTurn, event: ToolEvent): void {
    if (this.events) this.peer.notify("event", { turnId: turn.id, event });
    const forward = FORWARDED[event.type] as Forwarded<ToolEvent> | undefined;
    if (!forward) return;
    const { callId } = event;
    const id = this.peer.request(forward.method, { turnId: turn.id, callId, ...forward.params(event) }, (reply) => {
      turn.requests.delete(id);
      if (!forward.answer(turn.runtime, callId, reply))
        this.logger.debug({ callId, method: forward.method }, "reply for a call no longer waiting");
    });
    turn.requests.add(id);
  }

  /**
   * The end of the client's input: every request already received is answered (drains wait for
   * their calls; questions to the client fail, as nobody can reply), then the caller closes.
   */
  async finishInput(): Promise<void> {
    this.peer.endInput();
    await this.peer.answered();
  }

  /** Aborts every turn (their outputs are still sent), then closes the session. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const turn of this.turns.values()) turn.runtime.abort("the server is shutting down");
      // Aborted calls answer at once: waiting drains get their outputs before the session goes.
      await this.peer.answered();
      await this.session?.close();
      await Promise.all([...this.journals.values()].map((j) => j.close()));
    })();
    return this.closing;
  }
}
