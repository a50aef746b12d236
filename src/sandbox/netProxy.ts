import { chmod } from "node:fs/promises";
import net from "node:net";
import { texts } from "../protocol/index.js";
import { domainAllowed, normalizeHost } from "./domains.js";
import { BRIDGE_MARKER } from "../process/index.js";
import {
  HandshakeReader,
  HEADER,
  HOP_BY_HOP,
  httpReply,
  parseAuthority,
  printableHost,
  SOCKS,
  SOCKS_VERSION,
  socksCode,
  socksReply,
  splice,
  type Target,
  textOnly,
} from "./proxyWire.js";

/**
 * The host side of the network allowlist (DESIGN section 12): one proxy per environment on a
 * Unix socket, speaking HTTP (CONNECT, and absolute `http://` URLs forwarded) and SOCKS5
 * (CONNECT; domain, IPv4 and IPv6 addresses), told apart by the first byte as Anthropic's
 * sandbox-runtime does. It opens a connection only to a host the allowlist names; every other
 * destination gets `network access to {host} is not allowed by the sandbox` (a 403 body, a
 * SOCKS "not allowed" reply). A connection from the bridge (first byte 0) also gets that line
 * before the refusal, framed `\0{line}\n`, for the command's stderr: clients do not show a
 * CONNECT body or a SOCKS reply code.
 */

export interface NetworkProxyOptions {
  /** Where it listens; its directory should be the caller's own (0700): the socket is made 0600. */
  socketPath: string;
  /** Asked for every destination; the patterns of `domains.ts`, already checked. */
  allowed: () => Iterable<string>;
  /** Host name -> address to connect to. Default: the system's resolver (the name is connected to). */
  resolve?: ((host: string) => Promise<string> | string) | undefined;
  /** Until a request is read (default 30 s): a client that sends nothing is dropped. */
  handshakeTimeoutMs?: number;
  /** Until the destination accepts (default 30 s). */
  connectTimeoutMs?: number;
}

const MAX_CONNECTIONS = 512;
const DEFAULT_TIMEOUT_MS = 30_000;

export class NetworkProxy {
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    private readonly server: net.Server,
    private readonly opts: NetworkProxyOptions,
  ) {}

  get socketPath(): string {
    return this.opts.socketPath;
  }

  /** Listens on `opts.socketPath` (0600). */
  static async start(opts: NetworkProxyOptions): Promise<NetworkProxy> {
    const server = net.createServer();
    server.maxConnections = MAX_CONNECTIONS;
    const proxy = new NetworkProxy(server, opts);
    server.on("connection", (socket) => {
      proxy.accept(socket);
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(opts.socketPath, () => {
        server.off("error", reject);
        resolve();
      });
    });
    await chmod(opts.socketPath, 0o600);
    // An embedder that never closes its environment still exits once its commands are done.
    server.unref();
    return proxy;
  }

  /** Stops listening and cuts every connection (the socket file goes with the server). */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => {
      this.server.close(() => {
        resolve();
      });
    });
  }

  private track(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.once("close", () => {
      this.sockets.delete(socket);
    });
  }

  private accept(client: net.Socket): void {
    this.track(client);
    client.on("error", () => client.destroy());
    const reader = new HandshakeReader(client, this.opts.handshakeTimeoutMs ?? DEFAULT_TIMEOUT_MS);
    this.serve(client, reader)
      .catch(() => {
        client.destroy();
      })
      .finally(() => {
        reader.finish();
      });
  }

  private async serve(client: net.Socket, reader: HandshakeReader): Promise<void> {
    const bridged = (await reader.need(1))[0] === BRIDGE_MARKER;
    if (bridged) reader.take(1);
    const refuse = (host: string, reply: string | Buffer): void => {
      const line = texts.networkDenied(host);
      if (bridged) client.write(`\0${line}\n`);
      client.end(reply);
    };
    if ((await reader.need(1))[0] === SOCKS_VERSION) await this.socks(client, reader, refuse);
    else await this.http(client, reader, refuse);
  }

  private async http(
    client: net.Socket,
    reader: HandshakeReader,
    refuse: (host: string, reply: string) => void,
  ): Promise<void> {
    const head = await reader.until("\r\n\r\n");
    if (head === undefined) {
      client.end(httpReply("431 Request Header Fields Too Large", "request head too large"));
      return;
    }
    reader.take(head.length + 4);
    const [requestLine = "", ...lines] = head.toString("latin1").split("\r\n");
    const request = /^([A-Za-z]+) (\S+) (HTTP\/1\.[01])$/.exec(requestLine);
    const headers: [string, string][] = [];
    for (const line of lines) {
      const [, name, value] = HEADER.exec(line) ?? [];
      if (name === undefined || value === undefined || !textOnly(value)) break;
      headers.push([name, value]);
    }
    if (!request || headers.length !== lines.length) {
      client.end(httpReply("400 Bad Request", "malformed request"));
      return;
    }
    const [, method = "", uri = "", version = ""] = request;
    let target: Target | undefined;
    let forward: string | undefined;
    if (method.toUpperCase() === "CONNECT") {
      target = parseAuthority(uri);
    } else {
      // Only absolute http:// URLs: the host checked is the host connected to (no Host-header routing).
      let url: URL | undefined;
      try {
        url = /^http:\/\//i.test(uri) ? new URL(uri) : undefined;
      } catch {
        url = undefined;
      }
      if (url !== undefined) {
        target = { host: url.hostname, port: url.port === "" ? 80 : Number(url.port) };
        const kept = headers.filter(([name]) => !HOP_BY_HOP.has(name.toLowerCase())).map(([n, v]) => `${n}: ${v}`);
        // One request per connection: the destination cannot change under a kept-alive client.
        forward = [
          `${method} ${url.pathname}${url.search} ${version}`,
          `Host: ${url.host}`,
          ...kept,
          "Connection: close",
        ]
          .join("\r\n")
          .concat("\r\n\r\n");
      }
    }
    if (target === undefined || !printableHost(target.host)) {
      client.end(httpReply("400 Bad Request", "this proxy takes CONNECT host:port or an absolute http:// URL"));
      return;
    }
    reader.finish();
    if (!this.allows(target.host)) {
      refuse(target.host, httpReply("403 Forbidden", texts.networkDenied(target.host)));
      return;
    }
    let upstream: net.Socket;
    try {
      upstream = await this.dial(target);
    } catch (err) {
      client.end(
        httpReply("502 Bad Gateway", `could not connect to ${target.host}:${target.port}: ${(err as Error).message}`),
      );
      return;
    }
    if (client.destroyed) {
      upstream.destroy();
      return;
    }
    if (forward === undefined) client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    else upstream.write(forward);
    splice(client, upstream, reader.release());
  }

  private async socks(
    client: net.Socket,
    reader: HandshakeReader,
    refuse: (host: string, reply: Buffer) => void,
  ): Promise<void> {
    const methods = (await reader.need(2)).readUInt8(1);
    await reader.need(2 + methods);
    const offered = reader.take(2 + methods).subarray(2);
    if (!offered.includes(0)) {
      client.end(Buffer.from([SOCKS_VERSION, 0xff]));
      return;
    }
    client.write(Buffer.from([SOCKS_VERSION, 0]));
    const [version, command, , type] = await reader.need(4);
    if (version !== SOCKS_VERSION || command !== 1) {
      client.end(socksReply(SOCKS.badCommand));
      return;
    }
    let host: string;
    let at: number;
    if (type === 1) {
      const buf = await reader.need(10);
      host = [...buf.subarray(4, 8)].join(".");
      at = 8;
    } else if (type === 3) {
      const length = (await reader.need(5)).readUInt8(4);
      const buf = await reader.need(5 + length + 2);
      host = buf.subarray(5, 5 + length).toString("latin1");
      at = 5 + length;
    } else if (type === 4) {
      const buf = await reader.need(22);
      const words: string[] = [];
      for (let i = 4; i < 20; i += 2) words.push(buf.readUInt16BE(i).toString(16));
      host = `[${words.join(":")}]`;
      at = 20;
    } else {
      client.end(socksReply(SOCKS.badAddress));
      return;
    }
    const port = (await reader.need(at + 2)).readUInt16BE(at);
    reader.take(at + 2);
    reader.finish();
    if (!printableHost(host)) {
      // Not a name (control bytes, spaces): refused without echoing it.
      client.end(socksReply(SOCKS.badAddress));
      return;
    }
    if (port === 0 || !this.allows(host)) {
      refuse(host, socksReply(SOCKS.notAllowed));
      return;
    }
    let upstream: net.Socket;
    try {
      upstream = await this.dial({ host, port });
    } catch (err) {
      client.end(socksReply(socksCode(err)));
      return;
    }
    if (client.destroyed) {
      upstream.destroy();
      return;
    }
    client.write(socksReply(SOCKS.ok));
    splice(client, upstream, reader.release());
  }

  private allows(host: string): boolean {
    return domainAllowed(this.opts.allowed(), host);
  }

  private async dial(target: Target): Promise<net.Socket> {
    const name = normalizeHost(target.host) ?? target.host;
    const address = this.opts.resolve ? await this.opts.resolve(name) : name;
    return new Promise((resolve, reject) => {
      const upstream = net.connect({ host: address, port: target.port });
      this.track(upstream);
      const timer = setTimeout(
        () => upstream.destroy(Object.assign(new Error("timed out"), { code: "ETIMEDOUT" })),
        this.opts.connectTimeoutMs ?? DEFAULT_TIMEOUT_MS,
      );
      const failed = (err: Error): void => {
        clearTimeout(timer);
        reject(err);
      };
      upstream.once("error", failed);
      upstream.once("connect", () => {
        clearTimeout(timer);
        upstream.off("error", failed);
        resolve(upstream);
      });
    });
  }
}
