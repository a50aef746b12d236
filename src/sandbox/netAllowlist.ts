import { lstat, mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { NET_BRIDGE_ENTRY, netBridgeArgv } from "../process/index.js";
import { normalizeHost } from "./domains.js";
import { NetworkProxy } from "./netProxy.js";
import { isWithin } from "./roots.js";

/**
 * One environment's network allowlist (DESIGN section 12): the host proxy, started with the
 * first sandboxed command and ended by `close()`, and what bubblewrap needs to reach it: the
 * proxy's socket bound read-only into the sandbox (the directory of every environment's
 * sockets hidden under a tmpfs), and the bridge (netBridgeMain) wrapping the command.
 */

/** How a sandboxed command reaches the proxy. */
export interface NetworkRoute {
  /** bubblewrap arguments: mounts. */
  mounts: string[];
  /** Put before the command's argv (after bubblewrap's `--`). */
  wrapper: string[];
}

/** Directories the socket may live in, first usable wins: never inside a root the sandbox writes. */
function socketBases(): string[] {
  const uid = process.getuid?.() ?? 0;
  return [
    process.env["XDG_RUNTIME_DIR"],
    `/run/user/${uid}`,
    os.tmpdir(),
    "/tmp",
    "/dev/shm",
    "/var/tmp",
    os.homedir(),
  ].filter((d): d is string => d !== undefined && path.isAbsolute(d));
}

/**
 * `{base}/toolcall-net-{uid}`, this user's own (0700, not a link): made when missing; a
 * directory someone else could write or swap is refused.
 */
async function privateParent(base: string): Promise<string> {
  const uid = process.getuid?.() ?? 0;
  const dir = path.join(base, `toolcall-net-${uid}`);
  await mkdir(dir, { mode: 0o700 }).catch((err: unknown) => {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  });
  const st = await lstat(dir);
  if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o077) !== 0)
    throw new Error(`${dir} is not a private directory of this user`);
  return dir;
}

export class NetworkAllowlist {
  private started: Promise<{ proxy: NetworkProxy; parent: string; dir: string }> | undefined;
  private closed = false;

  /**
   * `domains` (checked patterns) is the environment's list: `allow` adds to it, and the proxy
   * reads it at each connection. `writable`: real paths the socket must stay out of.
   */
  constructor(
    private readonly domains: string[],
    private readonly writable: readonly string[],
    private readonly resolve: ((host: string) => Promise<string> | string) | undefined,
  ) {}

  /** Adds hosts (as the refusal named them) for the rest of the environment's life. */
  allow(hosts: readonly string[]): void {
    for (const host of hosts) {
      const name = normalizeHost(host);
      if (name !== undefined && !this.domains.includes(name)) this.domains.push(name);
    }
  }

  /** Starts the proxy on first use; the route a sandboxed command takes to it. */
  async route(readableRootsOnly: boolean): Promise<NetworkRoute> {
    if (this.closed) throw new Error("the environment is closed");
    this.started ??= this.start();
    const { proxy, parent } = await this.started;
    const socket = proxy.socketPath;
    const mounts = ["--tmpfs", parent, "--ro-bind", socket, socket];
    // With only the readable roots visible, the bridge and the node running it are bound in.
    if (readableRootsOnly) {
      for (const p of [process.execPath, path.dirname(NET_BRIDGE_ENTRY)]) mounts.push("--ro-bind", p, p);
    }
    return { mounts, wrapper: netBridgeArgv(socket) };
  }

  async close(): Promise<void> {
    this.closed = true;
    const started = await this.started?.catch(() => undefined);
    if (started === undefined) return;
    await started.proxy.close();
    await rm(started.dir, { recursive: true, force: true });
  }

  private async start(): Promise<{ proxy: NetworkProxy; parent: string; dir: string }> {
    let parent: string | undefined;
    for (const base of socketBases()) {
      const real = await realpath(base).catch(() => undefined);
      if (real === undefined || this.writable.some((root) => isWithin(root, real))) continue;
      parent = await privateParent(real).catch(() => undefined);
      if (parent !== undefined) break;
    }
    if (parent === undefined)
      throw new Error("no private directory outside the writable roots for the network proxy's socket");
    const dir = await mkdtemp(path.join(parent, "env-"));
    const proxy = await NetworkProxy.start({
      socketPath: path.join(dir, "proxy.sock"),
      allowed: () => this.domains,
      resolve: this.resolve,
    });
    return { proxy, parent, dir };
  }
}
