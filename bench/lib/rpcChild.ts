/** A JSON-lines JSON-RPC child process and a pipelining client for it (the sidecar benches). */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

interface Message {
  id?: number;
  result?: unknown;
  error?: unknown;
  method?: string;
}

export class RpcChild {
  private readonly child: ChildProcessWithoutNullStreams;
  private id = 0;
  private readonly waiting = new Map<number, { resolve(result: unknown): void; reject(err: Error): void }>();
  /** Notifications received, by method. */
  readonly notified = new Map<string, number>();
  /** Bytes the child wrote to stdout. */
  bytes = 0;

  /** `node ARGS` in `cwd`. */
  constructor(args: string[], cwd: string) {
    this.child = spawn(process.execPath, args, { cwd });
    this.child.stdout.on("data", (chunk: Buffer) => (this.bytes += chunk.length));
    createInterface({ input: this.child.stdout }).on("line", (line) => {
      const msg = JSON.parse(line) as Message;
      if (msg.method !== undefined) this.notified.set(msg.method, (this.notified.get(msg.method) ?? 0) + 1);
      if (msg.method !== undefined || msg.id === undefined) return;
      const waiter = this.waiting.get(msg.id);
      this.waiting.delete(msg.id);
      if (msg.error !== undefined) waiter?.reject(new Error(JSON.stringify(msg.error)));
      else waiter?.resolve(msg.result);
    });
  }

  /** One request; resolves with its result, rejects with an error reply. */
  send(method: string, params: unknown): Promise<unknown> {
    const id = ++this.id;
    const answered = new Promise((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    return answered;
  }

  /** Requests written at once in one write (pipelined); their replies are not waited for (an error one neither). */
  sendAll(method: string, params: readonly unknown[]): void {
    const lines = params.map((p) => JSON.stringify({ jsonrpc: "2.0", id: ++this.id, method, params: p }));
    this.child.stdin.write(`${lines.join("\n")}\n`);
  }

  /** User + system CPU of the process so far, ms (all its threads). */
  cpuMs(): number {
    const fields = readFileSync(`/proc/${this.child.pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
  }

  /** Ends its input and waits for it to exit. */
  async close(): Promise<void> {
    this.child.stdin.end();
    await new Promise((resolve) => this.child.once("close", resolve));
  }
}
