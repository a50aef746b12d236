import type net from "node:net";
import { normalizeHost } from "./domains.js";

/** The network proxy's wire (src/sandbox/netProxy.ts): reading a handshake, parsing a target, the replies. */

/** Bytes of an HTTP request head (or SOCKS handshake) read before the request is refused. */
export const MAX_HEAD_BYTES = 16 * 1024;

export const SOCKS_VERSION = 5;
export const SOCKS = { ok: 0, failure: 1, notAllowed: 2, unreachable: 4, refused: 5, badCommand: 7, badAddress: 8 };
export const HEADER = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*$/;
export const HOP_BY_HOP = new Set(["host", "connection", "proxy-connection", "proxy-authorization", "keep-alive"]);

class Closed extends Error {}

/** Reads a handshake from a socket: whole pieces on demand, at most MAX_HEAD_BYTES. */
export class HandshakeReader {
  private buf = Buffer.alloc(0);
  private wake: (() => void) | undefined;
  private done = false;

  private readonly timer: NodeJS.Timeout;

  /** A client that has not sent its whole request within `timeoutMs` is dropped. */
  constructor(
    private readonly socket: net.Socket,
    timeoutMs: number,
  ) {
    this.timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on("data", this.onData);
    socket.once("end", this.onEnd);
    socket.once("close", this.onEnd);
  }

  private readonly onData = (chunk: Buffer): void => {
    this.buf = Buffer.concat([this.buf, chunk]);
    // A client that will not stop talking gets no more reads: the waiting step fails on its limit.
    if (this.buf.length > MAX_HEAD_BYTES) this.socket.pause();
    this.wake?.();
  };

  private readonly onEnd = (): void => {
    this.done = true;
    this.wake?.();
  };

  /** The buffer once it holds `n` bytes; throws Closed when the client ends first. */
  async need(n: number): Promise<Buffer> {
    while (this.buf.length < n) {
      if (this.done || this.buf.length > MAX_HEAD_BYTES) throw new Closed();
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
    return this.buf;
  }

  /** The buffer up to `delimiter` (excluded), or undefined when MAX_HEAD_BYTES pass without it. */
  async until(delimiter: string): Promise<Buffer | undefined> {
    for (;;) {
      const at = this.buf.indexOf(delimiter);
      if (at >= 0 && at <= MAX_HEAD_BYTES) return this.buf.subarray(0, at);
      if (this.buf.length > MAX_HEAD_BYTES) return undefined;
      await this.need(this.buf.length + 1);
    }
  }

  /** The request is read: no more handshake deadline. */
  finish(): void {
    clearTimeout(this.timer);
  }

  take(n: number): Buffer {
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    return out;
  }

  /** Stops reading; what was read past the handshake is returned (it goes to the destination). */
  release(): Buffer {
    this.finish();
    this.socket.pause();
    this.socket.off("data", this.onData);
    this.socket.off("end", this.onEnd);
    this.socket.off("close", this.onEnd);
    return this.buf;
  }
}

/** A destination: the host as the client named it, for the allowlist and the refusal text. */
export interface Target {
  host: string;
  port: number;
}

/** `host:port` or `[v6]:port` (a CONNECT target). */
export function parseAuthority(authority: string): Target | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(authority);
  const [, host, digits] = m ?? [];
  const port = Number(digits);
  return host !== undefined && port >= 1 && port <= 65535 ? { host, port } : undefined;
}

/** A header value holds no control bytes but tab. */
export function textOnly(value: string): boolean {
  return /^[\t -~\u0080-\u00ff]*$/.test(value);
}

/** A host name, an IPv4 address or a bracketed IPv6 one: safe to echo in the refusal line. */
export function printableHost(host: string): boolean {
  return normalizeHost(host) !== undefined || /^\[[0-9a-fA-F:.]+\]$/.test(host);
}

export function httpReply(status: string, body: string): string {
  const text = `${body}\n`;
  return (
    `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\n` +
    `Connection: close\r\n\r\n${text}`
  );
}

export function socksReply(code: number): Buffer {
  return Buffer.from([SOCKS_VERSION, code, 0, 1, 0, 0, 0, 0, 0, 0]);
}

export function socksCode(err: unknown): number {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ECONNREFUSED") return SOCKS.refused;
  if (code === "ENOTFOUND" || code === "EHOSTUNREACH" || code === "ENETUNREACH" || code === "ETIMEDOUT")
    return SOCKS.unreachable;
  return SOCKS.failure;
}

/** Both ways until either side ends; an error on one side ends the other. */
export function splice(client: net.Socket, upstream: net.Socket, early: Buffer): void {
  if (early.length > 0) upstream.write(early);
  client.on("error", () => upstream.destroy());
  upstream.on("error", () => client.destroy());
  client.once("close", () => upstream.destroy());
  upstream.once("close", () => client.destroy());
  client.pipe(upstream);
  upstream.pipe(client);
  client.resume();
}
