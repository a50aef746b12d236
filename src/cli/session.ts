import path from "node:path";
import { stat } from "node:fs/promises";
import { pino, type Logger, type Level } from "pino";
import { McpConnectionManager } from "../mcp/manager.js";
import { ToolRouter } from "../router/router.js";
import { createTurnContext, type TurnContext } from "../turn/context.js";
import type { ToolEvent } from "../turn/events.js";
import { ConfigError, loadCliConfig, type CliConfig } from "./config.js";

/** Options every command shares. */
export interface CommonOptions {
  configPath?: string | undefined;
  cwd?: string | undefined;
  logLevel?: string | undefined;
}

/** The config, router and turn one command works with; `close()` stops MCP servers. */
export interface CliSession {
  config: CliConfig;
  cwd: string;
  logger: Logger;
  router: ToolRouter;
  turn: TurnContext;
  close(): Promise<void>;
}

const LEVELS: readonly string[] = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

/** Logs go to stderr (stdout carries results), written synchronously so none is lost at exit. */
export function stderrLogger(level: string | undefined): Logger {
  const chosen = level ?? process.env["TOOLCALL_LOG"] ?? "error";
  if (!LEVELS.includes(chosen)) {
    throw new ConfigError(`--log-level: expected one of ${LEVELS.join(", ")}, got ${JSON.stringify(chosen)}`);
  }
  return pino({ name: "toolcall", level: chosen as Level }, pino.destination({ dest: 2, sync: true }));
}

async function resolveCwd(dir: string | undefined): Promise<string> {
  const cwd = path.resolve(dir ?? process.cwd());
  const info = await stat(cwd).catch(() => undefined);
  if (!info?.isDirectory()) throw new ConfigError(`--cwd: not a directory: ${cwd}`);
  return cwd;
}

/**
 * Loads the config (from `--config`, or `toolcall.toml` in the working directory), starts
 * the configured MCP servers and builds the router and the turn.
 */
export async function openSession(
  opts: CommonOptions & { onEvent?: (event: ToolEvent) => void; logger?: Logger },
): Promise<CliSession> {
  const logger = opts.logger ?? stderrLogger(opts.logLevel);
  const cwd = await resolveCwd(opts.cwd);
  const config = await loadCliConfig({ configPath: opts.configPath, dir: cwd });
  let mcp: McpConnectionManager | undefined;
  if (Object.keys(config.mcpServers).length > 0) {
    mcp = McpConnectionManager.start(config.mcpServers, { logger, ...(opts.onEvent ? { onEvent: opts.onEvent } : {}) });
    // Calls name MCP tools by qualified name, which resolve only once their server has listed them.
    try {
      const { failed } = await mcp.waitForStartup();
      for (const f of failed) process.stderr.write(`toolcall: MCP server '${f.server}' failed to start: ${f.error}\n`);
    } catch (err) {
      await mcp.close();
      throw err;
    }
  }
  const router = await ToolRouter.fromConfig(config.tools, { logger, ...(mcp ? { mcp } : {}) }).catch(async (err: unknown) => {
    await mcp?.close();
    throw err;
  });
  const turn = createTurnContext({
    cwd,
    logger,
    ...(config.runtime.truncation ? { truncationPolicy: config.runtime.truncation } : {}),
    ...(opts.onEvent ? { onEvent: opts.onEvent } : {}),
  });
  return { config, cwd, logger, router, turn, close: async () => mcp?.close() };
}
