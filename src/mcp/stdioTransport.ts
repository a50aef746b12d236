import { spawn, type ChildProcess } from "node:child_process";
import type { Writable } from "node:stream";
import { serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { childClosed, signalProcessGroup, terminateProcessGroup, trackProcessGroup } from "../process/index.js";
import { ReplyReader } from "./replyReader.js";

export interface StdioLaunch {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  /** Cap on one message from the server (default 64 MiB). */
  maxReplyBytes?: number;
}

/**
 * The JSON-RPC error code of the answer this transport makes up for a reply it refused
 * (oversized or malformed): `McpConnection` turns it into `tool call error: {reason}`.
 */
export const REPLY_REJECTED_CODE = -32099;

const STDERR_TAIL = 2_000;

/** Resolves once `text` is written or buffered below the high-water mark. */
function write(stdin: Writable, text: string): Promise<void> {
  return new Promise((resolve) => {
    if (stdin.write(text)) resolve();
    else stdin.once("drain", resolve);
  });
}

const isResponse = (m: JSONRPCMessage): boolean => "id" in m && !("method" in m);

/**
 * The SDK's stdio transport, but the server runs in its own process group so `close()` (and
 * a server's death) takes launcher grandchildren (`npx`, `uvx`, shell wrappers) with it.
 * The environment is the SDK's safe base plus the configured `env`, like the SDK default.
 * The group is killed if this process ends first, but gets none of this process's signals:
 * a server lives across turns, and a host cancelling one on Ctrl-C keeps its servers.
 */
export class ProcessGroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child: ChildProcess | undefined;
  private readonly reader: ReplyReader;
  /** Ids of our requests still waiting for their answer, so a refused reply fails its own call. */
  private readonly pending = new Set<RequestId>();
  private stderrTail = "";
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private exited: Promise<void> | undefined;
  /** Messages waiting for their turn (see `deliver`). */
  private held: JSONRPCMessage[] | undefined;
  /** What was sent after the first message of this synchronous run, written together (see `send`). */
  private queued: string | undefined;
  /** What those senders await, made only when there is a second message. */
  private queuedWritten: Promise<void> | undefined;
  private queuedSettle: { resolve: () => void; reject: (err: Error) => void } | undefined;
  /** Ends the group's tracking for the host's exit; set while the group may be alive. */
  private untrack: (() => void) | undefined;
  /** `close()` was called: a start still importing the SDK's module then launches nothing. */
  private closing = false;

  constructor(private readonly launch: StdioLaunch) {
    this.reader = new ReplyReader(launch.maxReplyBytes);
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Why the process ended, with the end of its stderr; undefined while it runs. */
  exitDescription(): string | undefined {
    if (!this.exit) return undefined;
    const how = this.exit.signal ? `signal ${this.exit.signal}` : `code ${String(this.exit.code)}`;
    const tail = this.stderrTail.trim();
    return `process exited with ${how}${tail ? `; stderr: ${tail.slice(-500)}` : ""}`;
  }

  async start(): Promise<void> {
    if (this.child) throw new Error("ProcessGroupStdioTransport already started");
    // The SDK's stdio module (the safe base environment) is imported with the first server, not with the library.
    const { getDefaultEnvironment } = await import("@modelcontextprotocol/sdk/client/stdio.js");
    if (this.closing) throw new Error("MCP server closed before it started");
    if (this.child) throw new Error("ProcessGroupStdioTransport already started");
    return new Promise((resolve, reject) => {
      const child = spawn(this.launch.command, this.launch.args ?? [], {
        env: { ...getDefaultEnvironment(), ...this.launch.env },
        cwd: this.launch.cwd,
        stdio: ["pipe", "pipe", "pipe"],
        detached: true, // own process group, see class comment
      });
      this.child = child;
      this.exited = new Promise((done) =>
        child.once("close", () => {
          done();
        }),
      );
      child.once("error", (err) => {
        reject(new Error(`failed to launch ${this.launch.command}: ${err.message}`));
        this.onerror?.(err);
      });
      child.once("spawn", () => {
        if (child.pid !== undefined) this.untrack = trackProcessGroup(child.pid);
        resolve();
      });
      child.once("exit", (code, signal) => {
        this.exit = { code, signal };
        // The leader is gone; take whatever it left in its group along.
        if (child.pid !== undefined) signalProcessGroup(child.pid, "SIGKILL");
        this.untrack?.();
      });
      child.once("close", () => {
        // Whatever the server said before it went away is delivered before the close.
        this.deliverHeld(true);
        this.onclose?.();
      });
      child.stdin?.on("error", (err) => this.onerror?.(err));
      child.stdout?.on("error", (err) => this.onerror?.(err));
      child.stdout?.on("data", (chunk: Buffer) => {
        this.receive(chunk);
      });
      child.stderr?.on("data", (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL);
      });
    });
  }

  private receive(chunk: Buffer): void {
    const messages: JSONRPCMessage[] = [];
    for (const line of this.reader.push(chunk)) {
      if (line.kind === "message") {
        if (isResponse(line.message)) this.pending.delete((line.message as { id: RequestId }).id);
        messages.push(line.message);
      } else if (line.id !== undefined && this.pending.delete(line.id)) {
        // Its caller fails now rather than at its timeout.
        const error = { code: REPLY_REJECTED_CODE, message: line.reason, data: line.reason };
        messages.push({ jsonrpc: "2.0", id: line.id, error });
      } else {
        this.onerror?.(new Error(`MCP server wrote a line that is no message: ${line.reason}`)); // e.g. a log line
      }
    }
    this.deliver(messages);
  }

  /**
   * The SDK client handles a notification one microtask after it arrives but a response at
   * once, and forgets a request's progress handler with its response: a progress notification
   * read in the same chunk as the response would be dropped. A response that follows a
   * notification in one batch therefore waits (with everything after it) for `setImmediate`.
   */
  private deliver(messages: JSONRPCMessage[]): void {
    let notified = false;
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i] as JSONRPCMessage;
      if (this.held || (notified && isResponse(message))) {
        this.hold(messages.slice(i));
        return;
      }
      if (!("id" in message)) notified = true;
      this.onmessage?.(message);
    }
  }

  private hold(messages: JSONRPCMessage[]): void {
    if (this.held) {
      this.held.push(...messages);
      return;
    }
    this.held = messages;
    setImmediate(() => {
      this.deliverHeld(false);
    });
  }

  /** `all`: the stream ended, so nothing may wait any longer. */
  private deliverHeld(all: boolean): void {
    const held = this.held;
    this.held = undefined;
    if (!held) return;
    if (!all) {
      this.deliver(held);
      return;
    }
    for (const message of held) this.onmessage?.(message);
  }

  /**
   * The first message of a synchronous run is written at once (a lone request waits for
   * nothing); the ones sent after it in the same run are joined and written in one `write` once
   * it ends (a microtask). A pipe write is the largest CPU cost of a call: a turn's fan-out of
   * 100 calls makes 2 writes instead of 100, while the server starts on the first at once.
   */
  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || !stdin.writable || this.exit) return Promise.reject(this.notRunning());
    if ("method" in message && "id" in message) this.pending.add(message.id);
    else if ("method" in message && message.method === "notifications/cancelled") {
      this.pending.delete(message.params?.["requestId"] as RequestId);
    }
    let line: string;
    try {
      line = serializeMessage(message);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    if (this.queued !== undefined) {
      this.queued += line;
      return (this.queuedWritten ??= new Promise((resolve, reject) => (this.queuedSettle = { resolve, reject })));
    }
    this.queued = "";
    queueMicrotask(this.flush);
    return write(stdin, line);
  }

  private readonly flush = (): void => {
    const { queued, queuedSettle } = this;
    this.queued = this.queuedWritten = this.queuedSettle = undefined;
    if (!queued || !queuedSettle) return;
    const stdin = this.child?.stdin;
    if (stdin?.writable) write(stdin, queued).then(queuedSettle.resolve, queuedSettle.reject);
    else queuedSettle.reject(this.notRunning());
  };

  private notRunning(): Error {
    return new Error(`MCP server is not running${this.exit ? ` (${this.exitDescription()})` : ""}`);
  }

  /**
   * Closes stdin, then SIGTERM and (after a grace period) SIGKILL to the whole group; resolves
   * once the group is gone and the close reported (`onclose`).
   */
  async close(): Promise<void> {
    this.closing = true;
    const { child, exited } = this;
    if (!child || child.pid === undefined || !exited) return;
    try {
      child.stdin?.end();
    } catch {
      // already closed
    }
    await terminateProcessGroup(child.pid);
    await childClosed(exited);
    this.untrack?.();
    this.reader.clear();
  }
}
