import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { collect, spawnCli, type CliResult } from "./helpers.js";

export type RpcMessage = Record<string, unknown> & { id?: string | number | null; method?: string };

/**
 * A JSON-RPC client of `toolcall serve --stdio` in a child process: requests, raw lines, every
 * message received in order, and handlers for the server's own requests.
 */
export class RpcClient {
  readonly child: ChildProcess;
  readonly exited: Promise<CliResult>;
  /** Everything the server sent, in order. */
  readonly received: RpcMessage[] = [];
  private nextId = 1;
  private readonly waiting = new Map<string | number, (m: RpcMessage) => void>();
  private readonly watchers = new Set<() => void>();
  /** Answers the server's requests by method; unanswered ones stay pending. */
  readonly handlers = new Map<string, (params: Record<string, unknown>) => unknown>();

  constructor(args: string[] = [], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
    this.child = spawnCli(["serve", "--stdio", ...args], opts);
    this.exited = collect(this.child);
    // `collect` reads stdout as text too; lines are parsed here.
    createInterface({ input: this.child.stdout! }).on("line", (line) => {
      this.onMessage(JSON.parse(line) as RpcMessage);
    });
  }

  private onMessage(message: RpcMessage): void {
    this.received.push(message);
    if (message.method !== undefined && message.id !== undefined && message.id !== null) {
      const handler = this.handlers.get(message.method);
      if (handler) this.reply(message.id, handler(message["params"] as Record<string, unknown>));
    } else if (message.method === undefined && message.id !== undefined && message.id !== null) {
      this.waiting.get(message.id)?.(message);
      this.waiting.delete(message.id);
    }
    for (const watch of [...this.watchers]) watch();
  }

  send(line: string): void {
    this.child.stdin!.write(`${line}\n`);
  }

  reply(id: string | number, result: unknown): void {
    this.send(JSON.stringify({ jsonrpc: "2.0", id, result }));
  }

  /** The whole response (result or error). */
  call(method: string, params?: unknown): Promise<RpcMessage> {
    const id = this.nextId++;
    const answered = new Promise<RpcMessage>((resolve) => this.waiting.set(id, resolve));
    this.send(JSON.stringify({ jsonrpc: "2.0", id, method, ...(params !== undefined && { params }) }));
    return answered;
  }

  /** The result; rejects with the error's message. */
  async request<T = Record<string, unknown>>(method: string, params?: unknown): Promise<T> {
    const response = await this.call(method, params);
    if (response["error"] !== undefined) throw new Error(JSON.stringify(response["error"]));
    return response["result"] as T;
  }

  /** Resolves with the first message received (so far or later) that `match` accepts. */
  waitFor(match: (m: RpcMessage) => boolean): Promise<RpcMessage> {
    const found = this.received.find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => {
      const watch = (): void => {
        const hit = this.received.find(match);
        if (!hit) return;
        this.watchers.delete(watch);
        resolve(hit);
      };
      this.watchers.add(watch);
    });
  }

  /** The `turn/output` notifications received so far, as [callId, item]. */
  outputs(turnId: string): Array<[string, Record<string, unknown>]> {
    return this.received
      .filter((m) => m.method === "turn/output" && (m["params"] as { turnId: string }).turnId === turnId)
      .map((m) => {
        const p = m["params"] as { callId: string; item: Record<string, unknown> };
        return [p.callId, p.item];
      });
  }

  async shutdown(): Promise<CliResult> {
    await this.request("shutdown");
    this.child.stdin!.end();
    return this.exited;
  }
}

export const functionCall = (callId: string, name: string, args: unknown): Record<string, unknown> => ({
  type: "function_call",
  call_id: callId,
  name,
  arguments: JSON.stringify(args),
});
