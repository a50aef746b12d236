/**
 * `node spawnerMain.js`, started by the host with an IPC channel (spawner.ts): forks the host's
 * commands from this small process, so the host's event loop never waits for a `fork` that copies
 * its page tables (110-241 ms per command once it holds 400 MiB). Each command leads a new session
 * (process group); its pipes' handles go back to the host over the channel and are closed here.
 * It ends when the channel does (the host died or let it go), killing the groups it started whose
 * leader still runs: the host tracks each group only once it heard of it. Node built-ins only.
 */
import { spawn, type ChildProcess } from "node:child_process";
import type { SpawnerReply, SpawnFailure, SpawnRequest } from "./spawnerProtocol.js";

/** The native pipe handle under a child's stdio socket (node's own `_handle`), as far as it is used here. */
interface PipeHandle {
  readStop(): number;
  close(): void;
  onread: unknown;
}

const running = new Map<number, ChildProcess>();

function reply(message: SpawnerReply, handle?: PipeHandle): void {
  // The handle's copy here is closed once the message (and with it the descriptor) is written.
  process.send?.(message, handle as never, {}, () => handle?.close());
}

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === "string");

/** The request, if it is one; anything else is dropped (a bad request never ends the spawner). */
function parse(raw: unknown): SpawnRequest | string {
  if (typeof raw !== "object" || raw === null) return "not an object";
  const r = raw as Record<string, unknown>;
  if (typeof r["file"] !== "string" || !isStrings(r["args"]) || typeof r["cwd"] !== "string")
    return "bad file/args/cwd";
  const env = r["env"];
  if (typeof env !== "object" || env === null || !Object.values(env).every((v) => typeof v === "string"))
    return "bad env";
  const stdio = r["stdio"];
  if (!Array.isArray(stdio) || !stdio.every((s) => s === "ignore" || s === "pipe")) return "bad stdio";
  return raw as SpawnRequest;
}

function failure(err: unknown): SpawnFailure {
  const e = err as NodeJS.ErrnoException;
  return {
    message: typeof e?.message === "string" ? e.message : String(err),
    ...(typeof e?.code === "string" && { code: e.code }),
    ...(typeof e?.errno === "number" && { errno: e.errno }),
    ...(typeof e?.syscall === "string" && { syscall: e.syscall }),
    ...(typeof e?.path === "string" && { path: e.path }),
  };
}

function start(raw: unknown): void {
  const id = (raw as { id?: unknown } | null)?.id;
  if (typeof id !== "number" || !Number.isSafeInteger(id)) return;
  const req = parse(raw);
  if (typeof req === "string") {
    reply({ id, kind: "failed", error: { message: `bad spawn request: ${req}` } });
    return;
  }
  let child: ChildProcess;
  try {
    child = spawn(req.file, req.args, { cwd: req.cwd, env: req.env, detached: true, stdio: req.stdio });
  } catch (err) {
    reply({ id, kind: "failed", error: failure(err) });
    return;
  }
  const pid = child.pid;
  if (pid === undefined) {
    child.once("error", (err) => {
      reply({ id, kind: "failed", error: failure(err) });
    });
    return;
  }
  child.on("error", () => undefined);
  running.set(pid, child);
  // Detach every pipe from its socket before this tick ends, so nothing here reads a byte of
  // the command's output: a socket starts reading as it is made, and one whose handle waits in
  // the send queue would drop what it read (its handle's onread is a no-op once sent).
  const pipes: Array<[number, PipeHandle]> = [];
  child.stdio.forEach((stream, fd) => {
    const socket = stream as unknown as { _handle: PipeHandle | null } | null;
    const handle = socket?._handle;
    if (!socket || !handle) return;
    handle.readStop();
    handle.onread = () => undefined;
    socket._handle = null;
    pipes.push([fd, handle]);
  });
  reply({ id, kind: "started", pid });
  for (const [fd, handle] of pipes) reply({ id, kind: "pipe", fd }, handle);
  reply({ id, kind: "ready" });
  child.once("exit", (code, signal) => {
    running.delete(pid);
    reply({ id, kind: "exit", code, signal });
  });
}

process.on("message", start);
// The host is gone: nothing it started may outlive it, even what it had not yet heard of.
process.once("disconnect", () => {
  for (const pid of running.keys()) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
  process.exit(0);
});
