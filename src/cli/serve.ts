import { JsonRpcError, JsonRpcErrorCode, SidecarServer, type SidecarInitializeParams } from "../server/index.js";
import { isRecord, PACKAGE_VERSION } from "../util/index.js";
import { ConfigError } from "./config.js";
import { sandboxWarning } from "./sandbox.js";
import { exitCodeFor, onInterrupt, openSession, stderrLogger, type CommonOptions } from "./session.js";
import { LineBatcher, readLines } from "./stdioLines.js";

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
  // End of input: what was already asked is answered first (a script may pipe every request at once).
  const lines = readLines(
    process.stdin,
    (line) => {
      server.handleLine(line);
    },
    () => {
      void server.finishInput().then(stopped);
    },
  );
  try {
    await done;
    lines.stop();
    // Turns still running are aborted: their outputs and drains are answered before the session closes.
    await server.close();
    await out.flushed();
    return signal ? exitCodeFor(signal) : 0;
  } finally {
    stopHandlingSignals();
  }
}
