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

export interface JsonRpcPeerOptions {
  /** Answers one request or notification; throw `JsonRpcError` for an error with its code. */
  handle(method: string, params: Record<string, unknown>): Promise<unknown>;
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
    this.write({ jsonrpc: "2.0", id, method, params });
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

  notify(method: string, params: Record<string, unknown>): void {
    this.write({ jsonrpc: "2.0", method, params });
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
    if (counted) this.inFlight++;
    (isRecord(params) ? this.opts.handle(method, params) : Promise.reject(badParam("params", "an object", params)))
      .then(
        (result) => {
          const answer = result instanceof FollowedBy ? result.result : result;
          if (!isNotification) this.write({ jsonrpc: "2.0", id, result: answer });
          if (result instanceof FollowedBy) result.next();
          this.opts.onReplied?.(method);
        },
        (err: unknown) => {
          if (!isNotification) this.error(id, err);
          else this.opts.logger.warn({ method, err: errorMessage(err) }, "notification failed");
        },
      )
      .finally(() => {
        if (counted && --this.inFlight === 0) this.onIdle?.();
      })
      .catch((err: unknown) => {
        // Only a `send` that threw gets here: nothing left to tell the client.
        this.opts.logger.error({ method, err: errorMessage(err) }, "could not send the reply");
      });
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
    this.write({ jsonrpc: "2.0", id, error: { code: rpc.code, message: rpc.message } });
  }

  private write(message: Record<string, unknown>): void {
    let text: string;
    try {
      text = JSON.stringify(message);
    } catch (err) {
      // A value that cannot be serialized (a handler's BigInt): answer with what went wrong.
      text = JSON.stringify({
        jsonrpc: "2.0",
        id: message["id"] ?? null,
        error: { code: JsonRpcErrorCode.InternalError, message: `Internal error: ${errorMessage(err)}` },
      });
    }
    this.opts.send(text);
  }
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
