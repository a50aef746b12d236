import net from "node:net";

/**
 * The inside end of the network allowlist (DESIGN section 12): in a sandbox whose only network
 * is loopback, a listener on 127.0.0.1 that carries each connection to the host's proxy through
 * its Unix socket (the proxy tells HTTP from SOCKS5). Node built-ins only: it runs inside the
 * sandbox, from the one-command entry (netBridgeMain.ts) or a longer-lived helper.
 */

/** First byte the bridge sends on each connection: it wants refusals announced (see netProxy.ts). */
export const BRIDGE_MARKER = 0;
/** The longest announced line read before the connection is given up. */
const MAX_NOTICE_BYTES = 1024;
const SOCKS_VERSION = 5;

export interface NetworkBridge {
  /** The 127.0.0.1 port the proxy variables name. */
  readonly port: number;
  /** `HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY` (socks5h: names resolved by the proxy), their lower-case twins and `NO_PROXY`. */
  readonly env: Record<string, string>;
  close(): void;
}

export interface NetworkBridgeOptions {
  /** Each refusal the proxy announces (`network access to {host} is not allowed by the sandbox`). Default: written to stderr. */
  onRefusal?: (line: string) => void;
}

/** The proxy variables for a bridge on `port`. */
export function proxyEnv(port: number): Record<string, string> {
  const http = `http://127.0.0.1:${port}`;
  const socks = `socks5h://127.0.0.1:${port}`;
  const noProxy = "localhost,127.0.0.1,::1";
  return {
    HTTP_PROXY: http,
    HTTPS_PROXY: http,
    http_proxy: http,
    https_proxy: http,
    ALL_PROXY: socks,
    all_proxy: socks,
    NO_PROXY: noProxy,
    no_proxy: noProxy,
  };
}

/**
 * Carries `client` to the proxy at `socketPath`. Where the proxy answers, it may first announce
 * a refusal (`\0{line}\n`): at its first byte, or for SOCKS5 after its 2-byte method choice.
 * The line goes to `onRefusal`, the rest to the client.
 */
function carry(client: net.Socket, socketPath: string, onRefusal: (line: string) => void): void {
  const upstream = net.connect(socketPath);
  client.on("error", () => upstream.destroy());
  upstream.on("error", () => client.destroy());
  client.once("close", () => upstream.destroy());
  upstream.once("close", () => client.destroy());
  upstream.write(Buffer.from([BRIDGE_MARKER]));
  // The proxy answers only after the client spoke: its first byte is known by then.
  let pass = 0;
  client.once("data", (chunk: Buffer) => {
    if (chunk[0] === SOCKS_VERSION) pass = 2;
  });
  client.pipe(upstream);
  let head = Buffer.alloc(0);
  const onData = (chunk: Buffer): void => {
    head = Buffer.concat([head, chunk]);
    if (pass > 0) {
      const n = Math.min(pass, head.length);
      client.write(head.subarray(0, n));
      head = head.subarray(n);
      pass -= n;
      if (head.length === 0) return;
    }
    if (head[0] === BRIDGE_MARKER) {
      const end = head.indexOf(10);
      if (end < 0) {
        if (head.length > MAX_NOTICE_BYTES) upstream.destroy();
        return;
      }
      // The line is for a terminal: no control bytes.
      onRefusal(Buffer.from(head.subarray(1, end).filter((b) => b >= 0x20 && b !== 0x7f)).toString("utf8"));
      head = head.subarray(end + 1);
    }
    upstream.pause();
    upstream.off("data", onData);
    if (head.length > 0) client.write(head);
    upstream.pipe(client);
  };
  upstream.on("data", onData);
}

/** Listens on 127.0.0.1 (a free port) and carries every connection to the proxy's `socketPath`. */
export async function startNetworkBridge(socketPath: string, opts: NetworkBridgeOptions = {}): Promise<NetworkBridge> {
  const onRefusal = opts.onRefusal ?? ((line: string) => process.stderr.write(`${line}\n`));
  const clients = new Set<net.Socket>();
  const server = net.createServer((client) => {
    clients.add(client);
    client.once("close", () => clients.delete(client));
    carry(client, socketPath, onRefusal);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    env: proxyEnv(port),
    close: () => {
      server.close();
      for (const client of clients) client.destroy();
    },
  };
}
