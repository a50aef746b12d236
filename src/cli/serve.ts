import { createInterface } from "node:readline";
import { JsonRpcError, JsonRpcErrorCode, SidecarServer, type SidecarInitializeParams } from "../server/index.js";
import { isRecord, PACKAGE_VERSION } from "../util/index.js";
import { ConfigError } from "./config.js";
import { sandboxWarning } from "./sandbox.js";
import { exitCodeFor, onInterrupt, openSession, stderrLogger, type CommonOptions } from "./session.js";

/**
 * Messages written together at the end of the event loop's turn: a turn of many calls sends a
 * reply and an output per call, and one write per message costs a system call each.
 */
class LineBatcher {
  private pending: string[] = [];
  private scheduled = false;

  constructor(private readonly stream: NodeJS.WritableStream) {}

  push(line: string): void {
    this.pending.push(line);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.flush();
    });
  }

  private flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const text = `${this.pending.join("\n")}\n`;
    this.pending = [];
    this.stream.write(text);
  }

  /** Resolves once everything pushed so far is written. */
  flushed(): Promise<void> {
    this.flush();
    return new Promise((resolve) => {
      this.stream.write("", () => {
        resolve();
      });
    });
  }
}

export interface ServeOptions extends CommonOptions {
  stdio: boolean;
}

/**
 * `toolcall serve --stdio`: the JSON-RPC sidecar (DESIGN section 13) on stdin/stdout, one
 * message per line. The session opens at `initialize` (its `cwd` and `config` over the
 * flags') and lasts until `shutdown`, the end of stdin or a signal (exit 128 + its number,
 * after every output is written and the session's processes are gone).
 */
export async function runServe(opts: ServeOptions): Promise<number> {
  if (!opts.stdio) throw new ConfigError("--stdio is required (the sidecar's only transport)");
  const logger = stderrLogger(opts.logLevel);
  const out = new LineBatcher(process.stdout);
  let stopped!: () => void;
  const done = new Promise<void>((resolve) => (stopped = resolve));
  const server = new SidecarServer({
    version: PACKAGE_VERSION,
    logger,
    send: (message) => {
      out.push(message);
    },
    onShutdown: () => {
      stopped();
    },
    open: async (params: SidecarInitializeParams) => {
      const config = params.config;
      try {
        const session = await openSession({
          ...opts,
          logger,
          ...(params.cwd !== undefined && { cwd: params.cwd }),
          ...(typeof config === "string" && { configPath: config }),
          ...(isRecord(config) && { configDoc: config }),
          ...(params.dynamicTools && { dynamicTools: params.dynamicTools }),
          approve: "events",
        });
        const warning = await sandboxWarning(session.environment);
        if (warning !== undefined) process.stderr.write(`toolcall serve: ${warning}\n`);
        return { ...session, maxConcurrency: session.config.runtime.maxConcurrency };
      } catch (err) {
        // A bad cwd or config is the client's params; the session could not open.
        if (err instanceof ConfigError || err instanceof TypeError)
          throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, err.message);
        throw err;
      }
    },
  });
  let signal: NodeJS.Signals | undefined;
  const stopHandlingSignals = onInterrupt((s) => {
    signal = s;
    stopped();
  });
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on("line", (line) => {
    server.handleLine(line);
  });
  // End of input: what was already asked is answered first (a script may pipe every request at once).
  lines.once("close", () => {
    void server.finishInput().then(stopped);
  });
  try {
    await done;
    lines.close();
    // Turns still running are aborted: their outputs and drains are answered before the session closes.
    await server.close();
    await new Promise<void>((resolve) =>
      process.stdout.write("", () => {
        resolve();
      }),
    );
    return signal ? exitCodeFor(signal) : 0;
  } finally {
    stopHandlingSignals();
  }
}
