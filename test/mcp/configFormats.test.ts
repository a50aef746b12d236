import { copyFile, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { loadMcpConfig, McpConfigError } from "../../src/subpaths/mcp.js";
import { loadCliConfig } from "../../src/cli/config.js";
import { withTempDir } from "../cli/helpers.js";

const FIXTURES = fileURLToPath(new URL("../fixtures/configs/", import.meta.url));

/** Copies a fixture unchanged to `rel` under `dir`; returns its path. */
async function place(dir: string, fixture: string, rel: string): Promise<string> {
  const to = path.join(dir, rel);
  await mkdir(path.dirname(to), { recursive: true });
  await copyFile(path.join(FIXTURES, fixture), to);
  return to;
}

const saved = new Map<string, string | undefined>();
function setEnv(vars: Record<string, string | undefined>): void {
  for (const [k, v] of Object.entries(vars)) {
    if (!saved.has(k)) saved.set(k, process.env[k]);
    if (v === undefined) Reflect.deleteProperty(process.env, k);
    else process.env[k] = v;
  }
}
afterEach(() => {
  for (const [k, v] of saved) {
    if (v === undefined) Reflect.deleteProperty(process.env, k);
    else process.env[k] = v;
  }
  saved.clear();
});

async function loadError(file: string): Promise<McpConfigError> {
  const err = await loadMcpConfig(file).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(McpConfigError);
  return err as McpConfigError;
}

describe("configs people already have load as they are", () => {
  it("a whole ~/.codex/config.toml: our sections are read, Codex's own keys are skipped and noted", async () => {
    await withTempDir(async (dir) => {
      const file = await place(dir, "codex-config.toml", "config.toml");
      const config = await loadCliConfig({ configPath: file, dir });
      expect(config.mcpServers["docs"]).toEqual({
        command: "npx",
        args: ["-y", "mcp-server"],
        env: { API_KEY: "value" },
        envVars: ["API_KEY2"],
        cwd: "/tmp",
        startupTimeoutSec: 20,
        toolTimeoutSec: 30,
        enabledTools: ["search", "summarize"],
        disabledTools: ["search"],
      });
      expect(config.mcpServers["figma"]).toMatchObject({
        url: "https://mcp.figma.com/mcp",
        bearerTokenEnvVar: "ENV_VAR",
        envHttpHeaders: { HEADER_NAME: "ENV_VAR" },
      });
      expect(config.sandbox).toEqual({
        mode: "workspace-write",
        writableRoots: ["/tmp/codex-extra"],
        networkAccess: false,
      });
      expect(config.shellEnvironmentPolicy).toMatchObject({ inherit: "core", set: { CI: "1" } });
      expect(config.tools.viewImage).toBe(false);
      expect(config.ignoredKeys).toEqual(
        expect.arrayContaining(["model", "model_providers", "features", "otel", "tools.web_search", "profiles"]),
      );
      expect(await loadMcpConfig(file)).toEqual(config.mcpServers);
    });
  });

  it("Claude Desktop's claude_desktop_config.json (with its other top-level keys)", async () => {
    await withTempDir(async (dir) => {
      const file = await place(dir, "claude_desktop_config.json", "claude_desktop_config.json");
      const config = await loadCliConfig({ configPath: file, dir });
      expect(Object.keys(config.mcpServers)).toEqual(["filesystem", "github"]);
      expect(config.mcpServers["github"]?.env).toEqual({ GITHUB_PERSONAL_ACCESS_TOKEN: "<YOUR_TOKEN>" });
      expect(config.ignoredKeys).toEqual(["globalShortcut"]);
    });
  });

  it("Claude Code's .mcp.json: ${VAR} and ${VAR:-default} expanded; an unset variable is named", async () => {
    await withTempDir(async (dir) => {
      const file = await place(dir, "claude-code.mcp.json", ".mcp.json");
      setEnv({ API_KEY: "sk-1", API_BASE_URL: undefined, CONFIG_PATH: undefined, HOME: "/home/u" });
      expect(await loadMcpConfig(file)).toEqual({
        "api-server": { url: "https://api.example.com/mcp", httpHeaders: { Authorization: "Bearer sk-1" } },
        local: { command: "/home/u/bin/server", args: ["--config", "/etc/server.json"], env: { TOKEN: "sk-1" } },
      });
      setEnv({ API_KEY: undefined });
      const err = await loadError(file);
      expect(err.message).toBe(
        `${file}: mcpServers.api-server.headers.Authorization: environment variable API_KEY is not set (\${API_KEY})`,
      );
      expect([err.server, err.key]).toEqual(["api-server", "headers.Authorization"]);
    });
  });

  it("Cursor's .cursor/mcp.json: ${env:VAR} in env and headers, envFile under ${workspaceFolder}", async () => {
    await withTempDir(async (dir) => {
      const file = await place(dir, "cursor-mcp.json", "mcp.json");
      await writeFile(path.join(dir, ".env"), "# comment\nexport DB_URL='postgres://x'\nMODE=dev # trailing\n");
      setEnv({ API_KEY: "k-2" });
      const servers = await loadMcpConfig(file);
      expect(servers["server-name"]?.env).toEqual({ API_KEY: "k-2" });
      expect(servers["remote"]?.httpHeaders).toEqual({ API_KEY: "k-2" });
      expect(servers["with-env-file"]).toEqual({
        command: "node",
        args: [path.join(dir, "server.js")],
        env: { DB_URL: "postgres://x", MODE: "dev" },
      });
    });
  });

  it("VS Code's .vscode/mcp.json (comments, trailing commas, servers, inputs, envFile)", async () => {
    await withTempDir(async (dir) => {
      const file = await place(dir, "vscode-mcp.json", ".vscode/mcp.json");
      await writeFile(path.join(dir, ".env"), "FETCH_UA=toolcall\n");
      setEnv({ TOOLCALL_INPUT_PERPLEXITY_KEY: undefined });
      const err = await loadError(file);
      expect(err.message).toBe(
        `${file}: servers.Perplexity.env.PERPLEXITY_API_KEY: \${input:perplexity-key} asks for VS Code input 'perplexity-key' (Perplexity API Key): set TOOLCALL_INPUT_PERPLEXITY_KEY`,
      );
      setEnv({ TOOLCALL_INPUT_PERPLEXITY_KEY: "pplx-1" });
      const servers = await loadMcpConfig(file);
      expect(servers["Perplexity"]?.env).toEqual({ PERPLEXITY_API_KEY: "pplx-1" });
      expect(servers["fetch"]).toEqual({ command: "uvx", args: ["mcp-server-fetch"], env: { FETCH_UA: "toolcall" } });
      expect(servers["github"]).toEqual({ url: "https://api.githubcopilot.com/mcp/" });
      // The CLI takes the same file as its --config.
      expect((await loadCliConfig({ configPath: file, dir })).mcpServers).toEqual(servers);
    });
  });

  it("Cline's autoApprove / alwaysAllow / timeout and Windsurf's serverUrl", async () => {
    await withTempDir(async (dir) => {
      const cline = await place(dir, "cline_mcp_settings.json", "cline_mcp_settings.json");
      expect(await loadMcpConfig(cline)).toEqual({
        everything: { command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"], env: {}, enabled: true },
      });
      const windsurf = await place(dir, "windsurf-mcp_config.json", "mcp_config.json");
      setEnv({ AUTH_TOKEN: "t-3" });
      expect(await loadMcpConfig(windsurf)).toEqual({
        "remote-http-mcp": { url: "https://your-server-url/mcp", httpHeaders: { API_KEY: "t-3" } },
      });
    });
  });

  it("a .jsonc file is JSON with comments; a server key no known format has stays an error naming every accepted key", async () => {
    await withTempDir(async (dir) => {
      const jsonc = path.join(dir, "servers.jsonc");
      await writeFile(jsonc, '{ /* c */ "mcpServers": { "a": { "command": "x", } }, // done\n}');
      expect(await loadMcpConfig(jsonc)).toEqual({ a: { command: "x" } });
      const bad = path.join(dir, "bad.json");
      await writeFile(bad, JSON.stringify({ mcpServers: { a: { command: "x", comand: "y" } } }));
      const err = await loadError(bad);
      expect(err.message).toMatch(
        /mcpServers\.a\.comand: expected one of the keys command, args, .*, type, headers, disabled, serverUrl, envFile, got unknown key "comand"$/,
      );
      const top = path.join(dir, "toolcall.json");
      await writeFile(top, JSON.stringify({ mcpServer: {} }));
      // A top-level key no format has is warned, not fatal: the rest of the file still applies.
      expect((await loadCliConfig({ configPath: top, dir })).warnings).toEqual([
        expect.stringMatching(
          /toolcall\.json: unknown key mcpServer; ignored \(known keys: tools, .*mcpServers, servers/,
        ),
      ]);
      await writeFile(jsonc, '{ "mcpServers": { "a": { "command": "${NOPE_UNSET_VAR}" } } }');
      setEnv({ NOPE_UNSET_VAR: undefined });
      expect((await loadError(jsonc)).message).toMatch(
        /mcpServers\.a\.command: environment variable NOPE_UNSET_VAR is not set/,
      );
    });
  });

  it("oauth tables (snake_case in TOML), Codex's server-level scopes, max_reply_bytes; precise errors", async () => {
    const { parseMcpConfigToml } = await import("../../src/subpaths/mcp.js");
    const servers = parseMcpConfigToml(
      [
        "[mcp_servers.gh]",
        'url = "https://example.com/mcp"',
        'scopes = ["repo"]',
        "[mcp_servers.gh.oauth]",
        'client_id = "abc"',
        'client_secret = "s"',
        'grant_type = "client_credentials"',
        'issuer = "https://auth.example.com"',
        "[mcp_servers.local]",
        'command = "x"',
        "max_reply_bytes = 1048576",
      ].join("\n"),
      "c.toml",
    );
    expect(servers["gh"]?.oauth).toEqual({
      scopes: ["repo"],
      clientId: "abc",
      clientSecret: "s",
      grantType: "client_credentials",
      issuer: "https://auth.example.com",
    });
    expect(servers["local"]?.maxReplyBytes).toBe(1048576);
    const bad = (body: string): string => {
      try {
        parseMcpConfigToml(`[mcp_servers.gh]\nurl = "https://e.com/mcp"\n[mcp_servers.gh.oauth]\n${body}`, "c.toml");
      } catch (err) {
        return (err as Error).message;
      }
      return "no error";
    };
    expect(bad('grant_type = "password"')).toBe(
      'c.toml: mcp_servers.gh.oauth.grant_type: expected "authorization_code" or "client_credentials", got string "password"',
    );
    expect(bad('grant_type = "client_credentials"')).toBe(
      "c.toml: mcp_servers.gh.oauth.client_id: expected a client id for client credentials",
    );
    expect(bad("callback_port = 70000")).toBe(
      "c.toml: mcp_servers.gh.oauth.callback_port: expected a port in 1..65535, got number 70000",
    );
    expect(bad('clientId = "x"')).toMatch(
      /^c\.toml: mcp_servers\.gh\.oauth\.clientId: expected one of the keys client_id, client_secret, /,
    );
  });
});
