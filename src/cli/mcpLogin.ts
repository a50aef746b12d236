import { McpConnectionManager, OAuthTokenFile } from "../mcp/index.js";
import { ConfigError, loadCliConfig } from "./config.js";
import { resolveCwd, stderrLogger } from "./session.js";

export interface McpAuthOptions {
  action: string | undefined;
  server: string | undefined;
  configPath?: string | undefined;
  cwd?: string | undefined;
  logLevel?: string | undefined;
}

/**
 * `toolcall mcp login NAME`: authorizes a `url` server once (authorization code + PKCE): the
 * URL to open is printed, the browser comes back to a loopback listener, and the tokens are
 * kept under `$TOOLCALL_HOME` for every later session. `logout NAME` forgets them.
 */
export async function runMcpAuth(opts: McpAuthOptions): Promise<number> {
  const { action, server } = opts;
  if (action !== "login" && action !== "logout")
    throw new ConfigError("expected `mcp login NAME` or `mcp logout NAME`");
  if (server === undefined) throw new ConfigError(`mcp ${action}: expected a server name`);
  const cwd = await resolveCwd(opts.cwd);
  const logger = stderrLogger(opts.logLevel);
  const config = await loadCliConfig({ configPath: opts.configPath, dir: cwd, logger });
  const entry = config.mcpServers[server];
  if (!entry) {
    const known = Object.keys(config.mcpServers).join(", ") || "none";
    throw new ConfigError(`no MCP server '${server}' in ${config.file ?? "the config"} (servers: ${known})`);
  }
  if (entry.url === undefined) throw new ConfigError(`MCP server '${server}' is a stdio server: it has no login`);
  if (action === "logout") {
    const removed = await new OAuthTokenFile(server, entry.url).remove();
    process.stderr.write(removed ? `logged out of '${server}'\n` : `no stored login for '${server}'\n`);
    return 0;
  }
  const mcp = McpConnectionManager.start(
    { [server]: { ...entry, enabled: true } },
    {
      logger,
      onAuthorizationUrl: (url) => {
        process.stderr.write(
          `Open this URL to authorize '${server}':\n\n  ${url.href}\n\nWaiting for the browser...\n`,
        );
      },
    },
  );
  try {
    const [failure] = (await mcp.waitForStartup()).failed;
    if (failure) {
      process.stderr.write(`toolcall mcp login: MCP server '${server}' at ${entry.url}: ${failure.error}\n`);
      return 1;
    }
    process.stderr.write(`logged in to '${server}'\n`);
    return 0;
  } finally {
    await mcp.close();
  }
}
