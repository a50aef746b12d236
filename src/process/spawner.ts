import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { signalProcessGroup } from "./groups.js";
import { RemoteChild } from "./remoteChild.js";
import type { SpawnerReply, SpawnFailure, SpawnRequest } from "./spawnerProtocol.js";

/*
 * The host's spawner (spawnerMain.ts): one small node process per host, started on the first
 * command and again after it died, that forks the commands so the host's event loop never does
 * (a fork copies the forking process's page tables: 110-241 ms of a blocked loop per command in
 * a host holding 400 MiB, 6.5-13 ms in a small one). It leaves the host's loop alone while idle.
 */

const here = fileURLToPath(import.meta.url);
/** Compiled (dist/process, or the CLI's bundle in dist/bin) or the TypeScript source run through tsx (the tests). */
const FROM_SOURCE = here.endsWith(".ts");
const ENTRY = path.join(path.dirname(here), FROM_SOURCE ? "spawnerMain.ts" : "spawnerMain.js");

/** A request waiting for its pipes (or `failed`). */
interface Pending {
  child: RemoteChild;
  fds: number[];
  /** Undefined: the spawner could not run at all (the host forks it itself). */
  resolve: (child: RemoteChild | undefined) => void;
  reject: (err: Error) => void;
}

function rebuilt(failure: SpawnFailure): Error {
  const err: NodeJS.ErrnoException = new Error(failure.message);
  if (failure.code !== undefined) err.code = failure.code;
  if (failure.errno !== undefined) err.errno = failure.errno;
  if (failure.syscall !== undefined) err.syscall = failure.syscall;
  if (failure.path !== undefined) err.path = failure.path;
  return err;
}

class Spawner {
  dead = false;
  /** Has it said anything? One that died before never ran a command. */
  private answered = false;
  readonly proc: ChildProcess;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly children = new Map<number, RemoteChild>();
  /** Requests and referenced running children: while any, the channel holds the host's loop. */
  private readonly holding = new Set<RemoteChild>();

  constructor() {
    // Its own session: a Ctrl-C at the host's terminal is the host's to pass on, not the spawner's.
    this.proc = spawn(process.execPath, FROM_SOURCE ? ["--import", import.meta.resolve("tsx"), ENTRY] : [ENTRY], {
      detached: true,
      stdio: ["ignore", "ignore", "ignore", "ipc"],
      env: { PATH: process.env["PATH"] ?? "" },
    });
    this.proc.on("error", () => {
      this.died();
    });
    this.proc.once("exit", () => {
      this.died();
    });
    this.proc.once("disconnect", () => {
      this.died();
    });
    this.proc.on("message", (message: SpawnerReply, handle: unknown) => {
      this.onReply(message, handle);
    });
    this.proc.unref();
    this.proc.channel?.unref();
  }

  spawn(
    file: string,
    args: readonly string[],
    opts: Omit<SpawnRequest, "id" | "file" | "args">,
  ): Promise<RemoteChild | undefined> {
    const id = this.nextId++;
    const child = new RemoteChild(opts.stdio.length, (c) => {
      this.hold(c, c.referencing);
    });
    const fds = opts.stdio.flatMap((s, fd) => (s === "pipe" ? [fd] : []));
    return new Promise<RemoteChild | undefined>((resolve, reject) => {
      this.pending.set(id, { child, fds, resolve, reject });
      this.hold(child, true);
      const request: SpawnRequest = { id, file, args: [...args], ...opts };
      this.proc.send(request, (err) => {
        if (err) this.fail(id, new Error(`the process spawner is unreachable: ${err.message}`));
      });
    });
  }

  private hold(child: RemoteChild, on: boolean): void {
    if (on) this.holding.add(child);
    else this.holding.delete(child);
    if (this.holding.size > 0) this.proc.channel?.ref();
    else this.proc.channel?.unref();
  }

  private fail(id: number, err: Error): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    this.hold(p.child, false);
    // It may run already: nobody would wait for it.
    if (p.child.pid !== undefined) signalProcessGroup(p.child.pid, "SIGKILL");
    p.reject(err);
  }

  /** Hands the child over once every pipe it asked for is the host's. */
  private settle(id: number, p: Pending): void {
    if (p.fds.some((fd) => p.child.stdio[fd] === null)) return;
    this.pending.delete(id);
    this.children.set(id, p.child);
    p.resolve(p.child);
  }

  private onReply(message: SpawnerReply, handle: unknown): void {
    this.answered = true;
    const p = this.pending.get(message.id);
    switch (message.kind) {
      case "started":
        if (p) {
          p.child.pid = message.pid;
          this.settle(message.id, p);
        }
        return;
      case "pipe":
        if (p && handle) {
          p.child.attach(message.fd, handle);
          // At the last pipe, not at `ready`: that waits for the last handle's acknowledgement.
          this.settle(message.id, p);
        }
        return;
      case "ready":
        // Still pending: a descriptor the kernel could not pass (the host at its open-file limit).
        if (p) {
          for (const s of p.child.stdio) s?.destroy();
          this.fail(message.id, new Error("the process spawner could not pass the command's pipes"));
        }
        return;
      case "exit":
        this.children.get(message.id)?.exit(message.code, message.signal);
        this.children.delete(message.id);
        return;
      case "failed": {
        this.fail(message.id, rebuilt(message.error));
        return;
      }
    }
  }

  /**
   * Gone (killed, or the channel broke): nothing it started can be waited for any more. A
   * command still starting is refused; a running one is killed with its group and reads as
   * killed by SIGKILL: its real exit status went with the spawner. One that died before it
   * answered anything could not run here (no node, a bundle without its file): the host forks
   * its commands itself from then on, these first ones included.
   */
  private died(): void {
    if (this.dead) return;
    this.dead = true;
    if (current === this) current = undefined;
    if (!this.answered) {
      unusable = true;
      for (const [id, p] of [...this.pending]) {
        this.pending.delete(id);
        p.resolve(undefined);
      }
    }
    for (const id of [...this.pending.keys()])
      this.fail(id, new Error("the process spawner ended before the command started; run it again"));
    for (const child of this.children.values()) {
      if (child.pid !== undefined) signalProcessGroup(child.pid, "SIGKILL");
      child.exit(null, "SIGKILL");
    }
    this.children.clear();
    this.holding.clear();
    this.proc.kill("SIGKILL");
  }
}

let current: Spawner | undefined;
/** Set once a spawner could not run (or its file is not beside this one): the host forks itself. */
let unusable: boolean | undefined;

/**
 * Starts `file` through the host's spawner (started now if none runs) as the leader of a new
 * session; resolves once its pipes are the host's, rejects with the error node's spawn gives.
 * Resolves undefined where no spawner can run: the caller forks it itself.
 */
export async function spawnViaSpawner(
  file: string,
  args: readonly string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; stdio: Array<"ignore" | "pipe"> },
): Promise<RemoteChild | undefined> {
  // A bundler that left the spawner's file behind.
  unusable ??= !existsSync(ENTRY);
  if (unusable) return undefined;
  current ??= new Spawner();
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts.env)) if (v !== undefined) env[k] = v;
  return current.spawn(file, args, { cwd: opts.cwd, env, stdio: opts.stdio });
}

/** The running spawner's pid, if one runs (tests: the commands' parent). */
export function spawnerPid(): number | undefined {
  return current?.proc.pid;
}
