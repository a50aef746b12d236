import type { Socket } from "node:net";
import { createInterface } from "node:readline";
import type { Logger } from "pino";
import type { GroupChild } from "../../process/index.js";
import type { FileOps } from "../../protocol/index.js";
import { FILE_OPS } from "./ops.js";
import { decode, encode, type Answer } from "./wire.js";

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

interface Running {
  child: GroupChild["child"];
  pending: Map<number, Pending>;
  /** The last lines of its stderr: why it stopped, when it says. */
  stderr: string[];
}

const errorOf = (code: string, message: string): Error => Object.assign(new Error(message), { code });

/** An idle helper ends after this long (many environments, e.g. one per test, hold no process each). */
const IDLE_MS = 10_000;

/**
 * The host's end of the resident helper: started on the first call (`start` spawns it inside
 * the sandbox), many calls in flight over its pipes, each answered by id. When it dies, every
 * call in flight fails with one clear sentence (code `EHELPER`) and the next call starts a new
 * one; nothing waits on a dead helper. It never keeps the host's event loop alive while idle.
 */
export class HelperClient {
  private running: Running | undefined;
  private idle: NodeJS.Timeout | undefined;
  private nextId = 1;
  private closed = false;
  readonly files: FileOps;

  constructor(
    private readonly start: () => Promise<GroupChild>,
    private readonly logger?: Logger,
  ) {
    const ops: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
    for (const op of FILE_OPS) ops[op] = (...args) => this.call(op, args);
    this.files = ops as unknown as FileOps;
  }

  /** The running helper's pid (bubblewrap's, outside), for tests and diagnostics. */
  get pid(): number | undefined {
    return this.running?.child.pid;
  }

  private starting: Promise<Running> | undefined;

  private async helper(): Promise<Running> {
    if (this.running) return this.running;
    return (this.starting ??= this.launch().finally(() => (this.starting = undefined)));
  }

  private async launch(): Promise<Running> {
    const started = await this.start();
    const { child } = started;
    const { stdin, stdout, stderr } = child;
    if (!stdin || !stdout || !stderr) throw new Error("the sandbox's file helper started without its pipes");
    const running: Running = { child, pending: new Map(), stderr: [] };
    this.running = running;
    child.unref();
    this.setRef(running, false);
    stdin.on("error", () => undefined); // a dead helper's pipe: its exit answers the calls
    createInterface({ input: stdout, crlfDelay: Infinity }).on("line", (line) => {
      this.onAnswer(running, line);
    });
    createInterface({ input: stderr, crlfDelay: Infinity }).on("line", (line) => {
      running.stderr = [...running.stderr.slice(-4), line];
      this.logger?.debug({ line }, "sandbox helper stderr");
    });
    void started.exited.then(({ code, signal }) => {
      started.untrack();
      if (this.running === running) this.running = undefined;
      const said = running.stderr.at(-1);
      const why = `${signal ?? `exit ${code}`}${said ? `: ${said}` : ""}`;
      const err = errorOf(
        "EHELPER",
        `the sandbox's file helper stopped (${why}) during the call; the next call starts a new one`,
      );
      for (const p of running.pending.values()) p.reject(err);
      running.pending.clear();
    });
    return running;
  }

  /** Referenced only while a call is in flight: an idle helper never keeps the host alive. */
  private setRef(running: Running, on: boolean): void {
    for (const stream of [running.child.stdout, running.child.stderr] as Array<Socket | null>) {
      if (on) stream?.ref();
      else stream?.unref();
    }
  }

  private onAnswer(running: Running, line: string): void {
    let answer: Answer;
    try {
      answer = decode(line) as Answer;
    } catch {
      this.logger?.warn({ line: line.slice(0, 200) }, "sandbox helper answered a malformed line");
      return;
    }
    const pending = running.pending.get(answer.i);
    if (!pending) return;
    running.pending.delete(answer.i);
    if (running.pending.size === 0) this.rest(running);
    if ("e" in answer)
      pending.reject(
        Object.assign(
          errorOf(answer.e.code ?? "EHELPER", answer.e.message),
          answer.e.path === undefined ? {} : { path: answer.e.path },
        ),
      );
    else pending.resolve(answer.v === null ? undefined : answer.v);
  }

  /** No call in flight: let the host exit, and end the helper if none comes for a while. */
  private rest(running: Running): void {
    this.setRef(running, false);
    clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      if (this.running !== running || running.pending.size > 0) return;
      this.running = undefined; // detached first: the next call starts a new helper
      running.child.stdin?.end();
    }, IDLE_MS).unref();
  }

  private async call(op: string, args: unknown[]): Promise<unknown> {
    if (this.closed) throw errorOf("EHELPER", "the sandbox's file helper was closed with its environment");
    const running = await this.helper();
    clearTimeout(this.idle);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (running.pending.size === 0) this.setRef(running, true);
      running.pending.set(id, { resolve, reject });
      running.child.stdin?.write(`${encode({ i: id, o: op, a: args })}\n`);
    });
  }

  /** Ends the helper (end-of-file on its stdin, then SIGKILL if it lingers). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idle);
    const running = this.running;
    if (!running) return;
    const exited = new Promise<void>((resolve) => {
      if (running.child.exitCode !== null || running.child.signalCode !== null) resolve();
      else
        running.child.once("exit", () => {
          resolve();
        });
    });
    running.child.stdin?.end();
    const timer = setTimeout(() => {
      running.child.kill("SIGKILL");
    }, 5_000);
    await exited;
    clearTimeout(timer);
  }
}
