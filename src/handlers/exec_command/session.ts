import { constants } from "node:os";
import type { SpawnedProcess } from "../../protocol/index.js";
import type { CapturedBytes, SpillStore } from "../../turn/index.js";
import { HeadTailBuffer, SpillingCapture } from "../shell/index.js";
import type { ExecCommandArgs } from "./execCommandHandler.js";

/** Output not yet returned, per session: at most this much is kept (head and tail halves). */
const PENDING_SIDE_BYTES = 512 * 1024;

/** What one read of a session returns. */
export interface SessionChunk {
  output: CapturedBytes;
  /** Bytes the chunk held before it was bounded. */
  totalBytes: number;
  /** Set once the process has exited. */
  exitCode: number | undefined;
  /** The file holding the whole chunk when the model sees it cut (`spillDir`). */
  spilled?: string;
}

/** The exit code; 128 + the signal number when a signal ended it. */
const exitCodeOf = ({ code, signal }: { code: number | null; signal: NodeJS.Signals | null }): number =>
  code ?? 128 + (signal ? constants.signals[signal] : 0);

/**
 * One running process of `exec_command`: its output kept (bounded) until a call reads it, so
 * each read returns only what was not returned before. Reads of one session run one at a time.
 */
export class ExecSession {
  private pending = new HeadTailBuffer(PENDING_SIDE_BYTES, PENDING_SIDE_BYTES);
  /** With `spillDir`, each chunk is also kept whole once it outgrows memory. */
  private spilling: SpillingCapture | undefined;
  private wake: (() => void) | undefined;
  private exit: number | undefined;
  /** Settles once the process exited and its output was drained. */
  readonly done: Promise<void>;
  private queue: Promise<unknown> = Promise.resolve();
  lastUsed = Date.now();

  /** Text typed with `write_stdin` after the last line end: the start of the next line. */
  typed = "";
  /** Whoever streams this session's output while a call waits on it (output deltas). */
  private readonly watchers = new Set<(chunk: Buffer) => void>();

  constructor(
    readonly id: number,
    readonly proc: SpawnedProcess,
    readonly tty: boolean,
    private readonly spill?: SpillStore,
    /** The `exec_command` that started it: what typed input is judged by. */
    readonly launched?: ExecCommandArgs,
  ) {
    this.spilling = this.spillingCapture();
    const take = (chunk: Buffer): void => {
      if (this.spilling) this.spilling.append(chunk);
      else this.pending.append(chunk);
      for (const watch of this.watchers) watch(chunk);
      this.wake?.();
    };
    proc.stdout.on("data", take);
    proc.stderr.on("data", take);
    this.done = proc.exited.then(async (status) => {
      // Whatever it printed before exiting is read before the exit is reported.
      await proc.dispose();
      this.exit = exitCodeOf(status);
      this.wake?.();
    });
  }

  get exited(): boolean {
    return this.exit !== undefined;
  }

  /** Runs `fn` after every earlier read or write of this session. */
  serialize<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Calls `watch` with each chunk the process prints until the returned function is called. */
  watch(watch: (chunk: Buffer) => void): () => void {
    this.watchers.add(watch);
    return () => this.watchers.delete(watch);
  }

  /**
   * Ctrl-C to a session without a terminal (Codex 0.171): SIGINT to the process group, as a
   * terminal's line discipline would send it; false when the process is gone or its
   * environment cannot signal it.
   */
  interrupt(): boolean {
    if (this.exited || !this.proc.interrupt) return false;
    return this.proc.interrupt();
  }

  /** Sends `chars` to the process; false when it has no stdin (no tty) or it is gone. */
  write(chars: string): boolean {
    const stdin = this.proc.stdin;
    if (!stdin || stdin.destroyed || this.exited) return false;
    stdin.write(chars);
    return true;
  }

  private spillingCapture(): SpillingCapture | undefined {
    return this.spill && new SpillingCapture(this.pending, this.spill, `exec-session-${this.id}`);
  }

  /**
   * Waits until `yieldMs` passed or the process exited (or `signal` aborts), then returns the
   * output gathered since the last read; with a spill store, a chunk longer than `budget` bytes
   * is kept whole in a file the chunk names. With `quietMs`, output that arrives during the
   * wait and is then followed by `quietMs` of silence ends it early.
   */
  async read(yieldMs: number, signal: AbortSignal, budget: number, quietMs?: number): Promise<SessionChunk> {
    // Aborted already (while its process was starting: a round trip to the spawner), its
    // `abort` event is past: waiting for it would hold the call and its process for the yield.
    if (!this.exited && !signal.aborted) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(finish, yieldMs);
        let quiet: NodeJS.Timeout | undefined;
        function finish(): void {
          clearTimeout(timer);
          clearTimeout(quiet);
          signal.removeEventListener("abort", finish);
          resolve();
        }
        signal.addEventListener("abort", finish, { once: true });
        this.wake = () => {
          if (this.exited) finish();
          // Each chunk restarts the quiet period (`refresh` re-arms the timer in place).
          else if (quietMs !== undefined) quiet = quiet?.refresh() ?? setTimeout(finish, quietMs);
        };
      });
      this.wake = undefined;
    }
    signal.throwIfAborted();
    this.lastUsed = Date.now();
    const taken = this.pending;
    const spilling = this.spilling;
    this.pending = new HeadTailBuffer(PENDING_SIDE_BYTES, PENDING_SIDE_BYTES);
    this.spilling = this.spillingCapture();
    const chunk: SessionChunk = { output: taken.snapshot(), totalBytes: taken.totalBytes, exitCode: this.exit };
    const spilled = await spilling?.finish({ mode: "bytes", limit: budget });
    if (spilled !== undefined) chunk.spilled = spilled;
    return chunk;
  }

  /** Ends the process and everything it started. */
  async kill(): Promise<void> {
    await this.proc.terminate(0);
    await this.done;
  }
}
