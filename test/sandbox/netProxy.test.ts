/**
 * The network allowlist's host proxy (DESIGN section 12), on its own: real Unix and TCP
 * sockets, two HTTP servers on 127.0.0.1 reached under different names through the proxy's
 * resolver. What it lets through, what it refuses and how, and hostile input.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NetworkProxy } from "../../src/sandbox/netProxy.js";
import { MAX_HEAD_BYTES } from "../../src/sandbox/proxyWire.js";

const DENIED = "network access to other.test is not allowed by the sandbox";
let dir: string;
let proxy: NetworkProxy;
let allowedPort: number;
let otherPort: number;
let closedPort: number;
const seen: { name: string; url: string | undefined; headers: http.IncomingHttpHeaders }[] = [];

function server(name: string): Promise<{ server: http.Server; port: number }> {
  const s = http.createServer((req, res) => {
    seen.push({ name, url: req.url, headers: req.headers });
    res.end(`hello from ${name}\n`);
  });
  return new Promise((resolve) => {
    s.listen(0, "127.0.0.1", () => {
      resolve({ server: s, port: (s.address() as net.AddressInfo).port });
    });
  });
}

const servers: http.Server[] = [];
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "netproxy-"));
  const a = await server("allowed");
  const b = await server("other");
  servers.push(a.server, b.server);
  allowedPort = a.port;
  otherPort = b.port;
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  closedPort = (probe.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => {
    probe.close(() => {
      resolve();
    });
  });
  proxy = await NetworkProxy.start({
    socketPath: path.join(dir, "proxy.sock"),
    allowed: () => ["allowed.test", "127.0.0.1"],
    resolve: () => "127.0.0.1",
    handshakeTimeoutMs: 300,
  });
});
afterAll(async () => {
  await proxy.close();
  for (const s of servers) s.close();
  await rm(dir, { recursive: true, force: true });
});

/** Writes `data` to the proxy and returns everything it answers until it closes the connection. */
function exchange(data: Buffer | string, socketPath = proxy.socketPath): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(socketPath);
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      resolve(Buffer.concat(chunks));
    });
    socket.write(data);
  });
}

const get = (host: string, port: number, p = "/"): string =>
  `GET ${p} HTTP/1.1\r\nHost: ${host}:${port}\r\nConnection: close\r\n\r\n`;
const ip = (a: string): number[] => a.split(".").map(Number);
const portBytes = (port: number): number[] => [port >> 8, port & 0xff];
const socksDomain = (host: string, port: number): Buffer =>
  Buffer.from([5, 1, 0, 5, 1, 0, 3, host.length, ...Buffer.from(host, "latin1"), ...portBytes(port)]);

describe("HTTP CONNECT", () => {
  it("tunnels to an allowed name, bytes sent early included", async () => {
    const out = (
      await exchange(`CONNECT allowed.test:${allowedPort} HTTP/1.1\r\n\r\n${get("allowed.test", allowedPort)}`)
    ).toString();
    expect(out).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200 OK/);
    expect(out).toContain("hello from allowed");
  });

  it("refuses another name with a 403 whose body is the refusal", async () => {
    const before = seen.length;
    const out = (await exchange(`CONNECT other.test:${otherPort} HTTP/1.1\r\n\r\n`)).toString();
    expect(out).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
    expect(out.endsWith(`\r\n\r\n${DENIED}\n`)).toBe(true);
    expect(seen.length).toBe(before);
  });

  it("refuses IP literals that are not listed, IPv6 included", async () => {
    expect((await exchange(`CONNECT 127.0.0.2:${otherPort} HTTP/1.1\r\n\r\n`)).toString()).toContain(
      "network access to 127.0.0.2 is not allowed by the sandbox",
    );
    expect((await exchange(`CONNECT [::1]:${otherPort} HTTP/1.1\r\n\r\n`)).toString()).toContain(
      "network access to [::1] is not allowed by the sandbox",
    );
  });

  it("announces the refusal first to the bridge (first byte 0)", async () => {
    const out = (
      await exchange(Buffer.concat([Buffer.from([0]), Buffer.from(`CONNECT other.test:${otherPort} HTTP/1.1\r\n\r\n`)]))
    ).toString();
    expect(out.startsWith(`\0${DENIED}\nHTTP/1.1 403 Forbidden\r\n`)).toBe(true);
  });

  it("answers 502 when an allowed destination does not accept", async () => {
    expect((await exchange(`CONNECT allowed.test:${closedPort} HTTP/1.1\r\n\r\n`)).toString()).toMatch(
      new RegExp(`^HTTP/1\\.1 502 Bad Gateway\\r\\n[^]*could not connect to allowed\\.test:${closedPort}`),
    );
  });
});

describe("plain HTTP", () => {
  it("forwards an absolute http:// URL to its host, with the host's Host header and no proxy headers", async () => {
    const out = (
      await exchange(
        `GET http://allowed.test:${allowedPort}/p?q=1 HTTP/1.1\r\nHost: other.test\r\nProxy-Authorization: Basic eDp5\r\nX-Kept: yes\r\n\r\n`,
      )
    ).toString();
    expect(out).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(out).toContain("hello from allowed");
    const req = seen.at(-1);
    expect(req).toMatchObject({ name: "allowed", url: "/p?q=1" });
    expect(req?.headers).toMatchObject({ host: `allowed.test:${allowedPort}`, "x-kept": "yes", connection: "close" });
    expect(req?.headers["proxy-authorization"]).toBeUndefined();
  });

  it("judges the URL's host, not the userinfo before it", async () => {
    const out = (await exchange(`GET http://allowed.test@other.test:${otherPort}/ HTTP/1.1\r\n\r\n`)).toString();
    expect(out).toMatch(/^HTTP\/1\.1 403 Forbidden/);
    expect(out).toContain(DENIED);
  });

  it("refuses what is not a proxy request", async () => {
    expect((await exchange("GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\n")).toString()).toMatch(/^HTTP\/1\.1 400 /);
    expect((await exchange(`GET https://allowed.test:${allowedPort}/ HTTP/1.1\r\n\r\n`)).toString()).toMatch(
      /^HTTP\/1\.1 400 /,
    );
  });
});

describe("SOCKS5", () => {
  it("connects a domain it allows, bytes sent early included", async () => {
    const out = await exchange(
      Buffer.concat([socksDomain("allowed.test", allowedPort), Buffer.from(get("allowed.test", allowedPort))]),
    );
    expect([...out.subarray(0, 4)]).toEqual([5, 0, 5, 0]);
    expect(out.subarray(12).toString()).toContain("hello from allowed");
  });

  it("refuses another domain with reply 2 (not allowed by ruleset)", async () => {
    const out = await exchange(socksDomain("other.test", otherPort));
    expect([...out]).toEqual([5, 0, 5, 2, 0, 1, 0, 0, 0, 0, 0, 0]);
  });

  it("announces the refusal to the bridge after the method choice", async () => {
    const out = await exchange(Buffer.concat([Buffer.from([0]), socksDomain("other.test", otherPort)]));
    expect([...out.subarray(0, 2)]).toEqual([5, 0]);
    expect(out.subarray(2).toString("latin1")).toBe(`\0${DENIED}\n\x05\x02\x00\x01\0\0\0\0\0\0`);
  });

  it("takes IPv4 addresses (allowed when listed) and refuses IPv6", async () => {
    const v4 = await exchange(
      Buffer.concat([
        Buffer.from([5, 1, 0, 5, 1, 0, 1, ...ip("127.0.0.1"), ...portBytes(allowedPort)]),
        Buffer.from(get("127.0.0.1", allowedPort)),
      ]),
    );
    expect([...v4.subarray(0, 4)]).toEqual([5, 0, 5, 0]);
    expect(v4.toString()).toContain("hello from allowed");
    const v6 = await exchange(
      Buffer.from([5, 1, 0, 5, 1, 0, 4, ...Array<number>(15).fill(0), 1, ...portBytes(allowedPort)]),
    );
    expect([...v6.subarray(0, 4)]).toEqual([5, 0, 5, 2]);
  });

  it("refuses other commands, auth-only clients and names with control bytes", async () => {
    expect([...(await exchange(Buffer.from([5, 1, 2])))]).toEqual([5, 0xff]);
    expect([...(await exchange(Buffer.from([5, 1, 0, 5, 2, 0, 1, 127, 0, 0, 1, 0, 80])))].slice(2, 4)).toEqual([5, 7]);
    const out = await exchange(Buffer.concat([Buffer.from([0]), socksDomain("allowed.test\r\nx", allowedPort)]));
    expect([...out]).toEqual([5, 0, 5, 8, 0, 1, 0, 0, 0, 0, 0, 0]);
  });

  it("answers 5 (refused) when an allowed destination does not accept", async () => {
    expect([...(await exchange(socksDomain("allowed.test", closedPort)))].slice(2, 4)).toEqual([5, 5]);
  });
});

describe("hostile input", () => {
  it("a head past the limit gets 431, garbage 400, and the proxy keeps serving", async () => {
    const big = `CONNECT allowed.test:${allowedPort} HTTP/1.1\r\nX: ${"a".repeat(MAX_HEAD_BYTES)}\r\n\r\n`;
    expect((await exchange(big)).toString()).toMatch(/^HTTP\/1\.1 431 /);
    expect((await exchange("\x16\x03\x01\x02\x00garbage\r\n\r\n")).toString()).toMatch(/^HTTP\/1\.1 400 /);
    expect((await exchange("CONNECT allowed.test:1 HTTP/1.1\r\nBad\0Header: x\r\n\r\n")).toString()).toMatch(
      /^HTTP\/1\.1 400 /,
    );
    expect((await exchange(`CONNECT allowed.test:0 HTTP/1.1\r\n\r\n`)).toString()).toMatch(/^HTTP\/1\.1 400 /);
    expect((await exchange(`CONNECT allowed.test:99999 HTTP/1.1\r\n\r\n`)).toString()).toMatch(/^HTTP\/1\.1 400 /);
    expect((await exchange("CONNECT \x01evil:80 HTTP/1.1\r\n\r\n")).toString()).toMatch(/^HTTP\/1\.1 400 /);
    expect(
      (
        await exchange(`CONNECT allowed.test:${allowedPort} HTTP/1.1\r\n\r\n${get("allowed.test", allowedPort)}`)
      ).toString(),
    ).toContain("hello from allowed");
  });

  it("a client that stops mid-request is dropped at the handshake deadline", async () => {
    // exchange resolves only when the proxy closes the connection.
    expect((await exchange("CONNECT allowed.te")).length).toBe(0);
    expect((await exchange(Buffer.from([5, 1, 0, 5, 1, 0, 3, 200, 97]))).length).toBe(2);
  });

  it("a client that hangs up mid-request leaves nothing behind", async () => {
    for (const data of ["CONN", Buffer.from([5]), Buffer.from([5, 3, 0]), Buffer.from([0])]) {
      const socket = net.connect(proxy.socketPath);
      socket.on("error", () => undefined);
      await new Promise<void>((resolve) => socket.end(data, resolve));
      await new Promise((resolve) => socket.on("close", resolve));
    }
    expect((await exchange(`CONNECT other.test:1 HTTP/1.1\r\n\r\n`)).toString()).toContain(DENIED);
  });
});

describe("close", () => {
  it("cuts open tunnels and removes its socket", async () => {
    const p = await NetworkProxy.start({
      socketPath: path.join(dir, "second.sock"),
      allowed: () => ["allowed.test"],
      resolve: () => "127.0.0.1",
    });
    const socket = net.connect(p.socketPath);
    socket.on("error", () => undefined);
    const closed = new Promise((resolve) => socket.on("close", resolve));
    const established = new Promise((resolve) => socket.once("data", resolve));
    socket.write(`CONNECT allowed.test:${allowedPort} HTTP/1.1\r\n\r\n`);
    await established;
    await p.close();
    await closed;
    expect(existsSync(p.socketPath)).toBe(false);
  });
});
