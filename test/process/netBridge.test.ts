/**
 * The network allowlist's bridge (src/process/netBridge.ts) against a stand-in proxy on a Unix
 * socket: every connection to its 127.0.0.1 port reaches the proxy marked as the bridge's, the
 * proxy's announced refusal (`\0{line}\n`, first or after SOCKS5's method choice, whole or in
 * pieces) goes to `onRefusal` and never to the client, and everything else passes untouched.
 */
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startNetworkBridge, type NetworkBridge } from "../../src/process/index.js";

let dir: string;
let proxy: net.Server;
let bridge: NetworkBridge;
const refusals: string[] = [];
const received: Buffer[] = [];
/** What the stand-in proxy answers once it has a connection's first bytes: pieces written apart. */
let answer: Buffer[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "netbridge-"));
  proxy = net.createServer((socket) => {
    socket.once("data", (first: Buffer) => {
      received.push(first);
      const pieces = [...answer];
      // Each piece in its own write, the next after the bridge had the chance to read it.
      const next = (): void => {
        const piece = pieces.shift();
        if (piece === undefined) socket.end();
        else socket.write(piece, () => setTimeout(next, 20));
      };
      next();
    });
  });
  await new Promise<void>((resolve) => proxy.listen(path.join(dir, "p.sock"), resolve));
  bridge = await startNetworkBridge(path.join(dir, "p.sock"), { onRefusal: (line) => refusals.push(line) });
});
afterAll(async () => {
  bridge.close();
  await new Promise((resolve) => proxy.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

/** Sends `data` through the bridge; what comes back before the close. */
function through(data: Buffer): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(bridge.port, "127.0.0.1");
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      resolve(Buffer.concat(chunks));
    });
    socket.write(data);
  });
}

const b = (s: string): Buffer => Buffer.from(s, "latin1");

describe("network bridge", () => {
  it("names its proxy variables after its port", () => {
    const url = `http://127.0.0.1:${bridge.port}`;
    expect(bridge.env).toMatchObject({
      HTTP_PROXY: url,
      https_proxy: url,
      ALL_PROXY: `socks5h://127.0.0.1:${bridge.port}`,
    });
  });

  it("marks its connections and passes the answer through untouched", async () => {
    answer = [b("HTTP/1.1 200 Connection Established\r\n\r\n"), b("\0binary\0payload")];
    const out = await through(b("CONNECT a.test:443 HTTP/1.1\r\n\r\n"));
    expect(out.toString("latin1")).toBe("HTTP/1.1 200 Connection Established\r\n\r\n\0binary\0payload");
    expect(received.at(-1)?.[0]).toBe(0);
    expect(refusals).toEqual([]);
  });

  it("takes an announced refusal out of the stream, in pieces too", async () => {
    answer = [b("\0network access to x.test is not"), b(" allowed by the sandbox\nHTTP/1.1 403 Forbidden\r\n\r\n")];
    expect((await through(b("CONNECT x.test:443 HTTP/1.1\r\n\r\n"))).toString("latin1")).toBe(
      "HTTP/1.1 403 Forbidden\r\n\r\n",
    );
    expect(refusals.splice(0)).toEqual(["network access to x.test is not allowed by the sandbox"]);
  });

  it("for SOCKS5, looks for it after the method choice, which reaches the client at once", async () => {
    answer = [b("\x05\x00"), b("\0network access to y.test is not allowed by the sandbox\n\x05\x02\0\x01\0\0\0\0\0\0")];
    const out = await through(b("\x05\x01\x00"));
    expect([...out]).toEqual([5, 0, 5, 2, 0, 1, 0, 0, 0, 0, 0, 0]);
    expect(refusals.splice(0)).toEqual(["network access to y.test is not allowed by the sandbox"]);
    answer = [b("\x05\x00\x05\x00\0\x01\0\0\0\0\0\0payload")];
    expect((await through(b("\x05\x01\x00"))).subarray(12).toString()).toBe("payload");
    expect(refusals).toEqual([]);
  });

  it("drops control bytes from a refusal and gives up on one that never ends", async () => {
    answer = [b("\0evil\x1b[2Jline\x07\n")];
    await through(b("GET http://z.test/ HTTP/1.1\r\n\r\n"));
    expect(refusals.splice(0)).toEqual(["evil[2Jline"]);
    answer = [b(`\0${"a".repeat(2000)}`)];
    expect((await through(b("GET http://z.test/ HTTP/1.1\r\n\r\n"))).length).toBe(0);
    expect(refusals).toEqual([]);
  });
});
