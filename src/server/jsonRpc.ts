import type { Logger } from "pino";
import { errorMessage, isRecord } from "../util/index.js";

/** JSON-RPC 2.0 error codes the sidecar answers with (DESIGN section 13). */
export const JsonRpcErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** A request other than `initialize` before the session is open (LSP's code). */
  NotInitialized: -32002,
} as const;

const INPUT_ENDED = "the client closed its input before replying";

/** An error answered to the client with its code; anything else thrown is -32603. */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = "JsonRpcError";
  }
}

export type JsonRpcId = string | number;

/** The client's answer to one of our requests. */
export type JsonRpcReply = { ok: true; result: unknown } | { ok: false; message: string };

/** A method's result and what to do once it is sent (e.g. stream what the reply announced). */
export class FollowedBy {
  constructor(
    readonly result: unknown,
    readonly next: () => void,
  ) {}
}

/**
 * A value already serialized (its JSON text), sent as it is: what the sidecar wrote once is
 * not serialized again (an output streamed and then drained).
 */
export class JsonText {
  constructor(readonly text: string) {}
}

export interface JsonRpcPeerOptions {
  /**
   * Answers one request or notification; throw `JsonRpcError` (or reject with it) for an error
   * with its code. A value (not a promise) is answered at once, in the same event-loop turn.
   */
  handle(method: string, params: Record<string, unknown>): unknown;
  /** Writes one message (already a JSON text, no newline). */
  send(message: string): void;
  logger: Logger;
  /** Requests that are not counted by `answered()` (`shutdown`, which waits for the others). */
  uncounted?: ReadonlySet<string>;
  /** After the reply to `method` was sent. */
  onReplied?(method: string): void;
}

/**
 * JSON-RPC 2.0 over lines, both ways, and nothing of what the methods mean: parses and checks
 * each message, answers requests with what `handle` gives (errors with their codes), delivers
 * the client's replies to our own requests, and knows when every request received so far has
 * been answered. Transport-free: the caller feeds lines in and writes what `send` gets.
 */
export class JsonRpcPeer {
  private readonly pending = new Map<JsonRpcId, (reply: JsonRpcReply) => void>();
  private inputEnded = false;
  private requestCount = 0;
  /** Requests received and not answered yet (the uncounted aside). */
  private inFlight = 0;
  private onIdle: (() => void) | undefined;

  constructor(private readonly opts: JsonRpcPeerOptions) {}

  /** One line of input: a request, a notification, or the client's reply to our request. */
  handleLine(line: string): void {
    const text = line.charCodeAt(0) === 0xfeff ? line.slice(1) : line; // a UTF-8 BOM
    if (text.trim() === "") return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch (err) {
      this.error(null, new JsonRpcError(JsonRpcErrorCode.ParseError, `Parse error: ${errorMessage(err)}`));
      return;
    }
    this.handleMessage(message);
  }

  /** Sends a request to the client; `deliver` gets its reply. Returns the request's id. */
  request(method: string, params: Record<string, unknown>, deliver: (reply: JsonRpcReply) => void): JsonRpcId {
    const id = `s${++this.requestCount}`;
    if (this.inputEnded) {
      // Nobody can reply any more: the request fails as a reply would, after this call returns.
      queueMicrotask(() => {
        deliver({ ok: false, message: INPUT_ENDED });
      });
      return id;
    }
    this.pending.set(id, deliver);
    this.send(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":${JSON.stringify(method)},"params":`, params, id);
    return id;
  }

  /**
   * The client's input ended: our requests waiting for replies, and any sent from now on, fail
   * (an approval is then denied, a dynamic call fails), so the requests already received finish.
   */
  endInput(): void {
    this.inputEnded = true;
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const deliver of waiting) deliver({ ok: false, message: INPUT_ENDED });
  }

  /** Forgets a request of ours: a late reply to it is then logged and dropped. */
  forget(id: JsonRpcId): void {
    this.pending.delete(id);
  }

  notify(method: string, params: Record<string, unknown> | JsonText): void {
    this.send(`{"jsonrpc":"2.0","method":${JSON.stringify(method)},"params":`, params, null);
  }

  /** Resolves once every counted request received so far has been answered. */
  answered(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.onIdle = () => {
        this.onIdle = undefined;
        resolve();
      };
    });
  }

  private handleMessage(message: unknown): void {
    if (!isRecord(message) || message["jsonrpc"] !== "2.0") {
      const why = Array.isArray(message)
        ? "batches are not supported: one message per line"
        : 'expected an object with jsonrpc "2.0"';
      this.error(idOf(message), new JsonRpcError(JsonRpcErrorCode.InvalidRequest, `Invalid Request: ${why}`));
      return;
    }
    const id = idOf(message);
    const method = message["method"];
    if (method === undefined && id !== null && ("result" in message || "error" in message)) {
      this.handleReply(id, message);
      return;
    }
    if (typeof method !== "string") {
      this.error(id, new JsonRpcError(JsonRpcErrorCode.InvalidRequest, "Invalid Request: method must be a string"));
      return;
    }
    const params = message["params"] ?? {};
    const isNotification = !("id" in message);
    const counted = !(this.opts.uncounted?.has(method) ?? false);
    let result: unknown;
    try {
      if (!isRecord(params)) throw badParam("params", "an object", params);
      result = this.opts.handle(method, params);
    } catch (err) {
      this.failed(method, id, isNotification, err);
      return;
    }
    // A synchronous answer (most `turn/submit`s) goes out now: no promise, no microtask per request.
    if (!(result instanceof Promise)) {
      this.answer(method, id, isNotification, result);
      return;
    }
    if (counted) this.inFlight++;
    // Neither `answer` nor `failed` throws: this chain cannot reject.
    void result
      .then(
        (value) => {
          this.answer(method, id, isNotification, value);
        },
        (err: unknown) => {
          this.failed(method, id, isNotification, err);
        },
      )
      .finally(() => {
        if (counted && --this.inFlight === 0) this.onIdle?.();
      });
  }

  /** The reply to a request (none to a notification), then what the result asked to follow it. */
  private answer(method: string, id: JsonRpcId | null, isNotification: boolean, result: unknown): void {
    try {
      const followed = result instanceof FollowedBy ? result : undefined;
      if (!isNotification)
        this.send(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`, followed ? followed.result : result, id);
      followed?.next();
      this.opts.onReplied?.(method);
    } catch (err) {
      this.unsent(method, err);
    }
  }

  private failed(method: string, id: JsonRpcId | null, isNotification: boolean, err: unknown): void {
    try {
      if (!isNotification) this.error(id, err);
      else this.opts.logger.warn({ method, err: errorMessage(err) }, "notification failed");
    } catch (sendErr) {
      this.unsent(method, sendErr);
    }
  }

  /** Only a `send` that threw gets here: nothing left to tell the client. */
  private unsent(method: string, err: unknown): void {
    this.opts.logger.error({ method, err: errorMessage(err) }, "could not send the reply");
  }

  private handleReply(id: JsonRpcId, message: Record<string, unknown>): void {
    const deliver = this.pending.get(id);
    if (!deliver) {
      this.opts.logger.warn({ id }, "reply to no request of ours");
      return;
    }
    this.pending.delete(id);
    const error = message["error"];
    if (error !== undefined) {
      const text = isRecord(error) && typeof error["message"] === "string" ? error["message"] : JSON.stringify(error);
      deliver({ ok: false, message: text });
    } else {
      deliver({ ok: true, result: message["result"] });
    }
  }

  private error(id: JsonRpcId | null, err: unknown): void {
    const rpc =
      err instanceof JsonRpcError
        ? err
        : new JsonRpcError(JsonRpcErrorCode.InternalError, `Internal error: ${errorMessage(err)}`);
    if (!(err instanceof JsonRpcError)) this.opts.logger.error({ err: errorMessage(err) }, "request failed");
    this.opts.send(errorReply(id, rpc));
  }

  /**
   * One message: its envelope's text up to the last member (`head`, ending in `"key":`), then
   * `value` serialized (null when undefined; a `JsonText` as it is) and the closing brace; the
   * envelope is never built as an object. A value that cannot be serialized (a handler's BigInt) is answered
   * with what went wrong.
   */
  private send(head: string, value: unknown, id: JsonRpcId | null): void {
    let text: string;
    try {
      text = `${head}${value instanceof JsonText ? value.text : (JSON.stringify(value) ?? "null")}}`;
    } catch (err) {
      text = errorReply(id, new JsonRpcError(JsonRpcErrorCode.InternalError, `Internal error: ${errorMessage(err)}`));
    }
    this.opts.send(text);
  }
}

/** An error reply's text. */
function errorReply(id: JsonRpcId | null, err: JsonRpcError): string {
  return JSON.stringify({ jsonrpc: "2.0", id, error: { code: err.code, message: err.message } });
}

/** An InvalidParams error naming the field, what it should be and what came. */
export function badParam(field: string, expected: string, got: unknown): JsonRpcError {
  return new JsonRpcError(
    JsonRpcErrorCode.InvalidParams,
    `${field}: expected ${expected}, got ${got === undefined ? "nothing" : JSON.stringify(got)}`,
  );
}

function idOf(message: unknown): JsonRpcId | null {
  if (!isRecord(message)) return null;
  const id = message["id"];
  return typeof id === "string" || typeof id === "number" ? id : null;
}
