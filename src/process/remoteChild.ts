import { EventEmitter } from "node:events";
import net from "node:net";
import type { Readable, Writable } from "node:stream";

/**
 * What the callers of `spawnGroup` use of a started process: node's `ChildProcess` has it, and so
 * does a command the spawner started (RemoteChild).
 */
export interface GroupProcess {
  readonly pid?: number | undefined;
  readonly stdin: Writable | null;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  readonly stdio: ReadonlyArray<Readable | Writable | null | undefined>;
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | null;
  kill(signal?: NodeJS.Signals): boolean;
  ref(): void;
  unref(): void;
  on(event: "exit", listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  on(event: "close", listener: () => void): this;
  on(event: "error", listener: (err: Error) => void): this;
  once(event: "exit", listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  once(event: "close", listener: () => void): this;
  once(event: "error", listener: (err: Error) => void): this;
}

/**
 * A command the spawner started, as the host sees it: its pipes (handles the spawner passed over
 * and closed on its side), its pid, and its exit as the spawner reports it. Emits `exit` and then
 * `close` (exited and every pipe it reads closed), like a ChildProcess.
 */
export class RemoteChild extends EventEmitter implements GroupProcess {
  pid: number | undefined;
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  readonly stdio: Array<net.Socket | null>;
  private openPipes = 0;
  private hasExited = false;
  private exitEmitted = false;
  private closeEmitted = false;
  private referenced = true;

  constructor(
    fds: number,
    /** Tells the spawner to look again whether this child holds the host's event loop (`referencing`). */
    private readonly changed: (child: RemoteChild) => void,
  ) {
    super();
    this.stdio = Array.from({ length: fds }, () => null);
  }

  get stdin(): net.Socket | null {
    return this.stdio[0] ?? null;
  }

  get stdout(): net.Socket | null {
    return this.stdio[1] ?? null;
  }

  get stderr(): net.Socket | null {
    return this.stdio[2] ?? null;
  }

  /** Wraps the pipe handle the spawner sent for `fd`, as node wraps a child's own: fd 0 is written, the others read. */
  attach(fd: number, handle: unknown): void {
    const socket = new net.Socket({ handle, readable: fd > 0 } as net.SocketConstructorOpts);
    this.stdio[fd] = socket;
    if (fd === 0) return;
    this.openPipes++;
    socket.once("close", () => {
      this.openPipes--;
      this.maybeClose();
    });
  }

  /** The spawner reported the exit (or lost the command: then `signal` is what the host killed it with). */
  exit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.hasExited) return;
    this.hasExited = true;
    this.changed(this);
    this.exitCode = signal === null ? code : null;
    this.signalCode = signal;
    this.stdin?.destroy();
    // After the continuation of whoever awaited the start (which attaches its listeners), as a
    // ChildProcess's exit comes from the event loop.
    setImmediate(() => {
      this.exitEmitted = true;
      this.emit("exit", this.exitCode, this.signalCode);
      // Unlike a ChildProcess, pipes nobody reads yet are not resumed here: the exit comes over
      // the channel, often before the caller attached its listeners, and would drop the output.
      // releaseGroup closes them.
      this.maybeClose();
    });
  }

  private maybeClose(): void {
    if (!this.exitEmitted || this.openPipes > 0 || this.closeEmitted) return;
    this.closeEmitted = true;
    this.emit("close", this.exitCode, this.signalCode);
  }

  kill(signal: NodeJS.Signals = "SIGTERM"): boolean {
    if (this.pid === undefined || this.hasExited) return false;
    try {
      process.kill(this.pid, signal);
      return true;
    } catch {
      return false;
    }
  }

  get referencing(): boolean {
    return this.referenced && !this.hasExited;
  }

  ref(): void {
    this.referenced = true;
    this.changed(this);
  }

  unref(): void {
    this.referenced = false;
    this.changed(this);
  }
}
