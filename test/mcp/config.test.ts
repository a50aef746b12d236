import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadMcpConfig, McpConfigError, parseMcpConfigJson, parseMcpConfigToml, validateMcpServersConfig } from "../../src/index.js";

let dir: string;
beforeAll(async () => (dir = await mkdtemp(join(tmpdir(), "mcp-config-"))));
afterAll(() => rm(dir, { recursive: true, force: true }));

const TOML = `
model = "o3"   # other Codex settings are ignored

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-server"]
env = { API_KEY = "k" }
cwd = "/tmp"
startup_timeout_sec = 10
tool_timeout_sec = 60.5
enabled_tools = ["search"]
disabled_tools = ["delete"]
supports_parallel_tool_calls = true
required = true

[mcp_servers.remote]
url = "https://example.com/mcp"
bearer_token_env_var = "REMOTE_TOKEN"
http_headers = { "X-Team" = "a" }
enabled = false
`;

function errorOf(fn: () => unknown): McpConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(McpConfigError);
    return err as McpConfigError;
  }
  throw new Error("expected a McpConfigError");
}

describe("MCP config", () => {
  it("reads every key of Codex TOML", () => {
    expect(parseMcpConfigToml(TOML, "config.toml")).toEqual({
      docs: {
        command: "npx",
        args: ["-y", "docs-server"],
        env: { API_KEY: "k" },
        cwd: "/tmp",
        startupTimeoutSec: 10,
        toolTimeoutSec: 60.5,
        enabledTools: ["search"],
        disabledTools: ["delete"],
        supportsParallelToolCalls: true,
        required: true,
      },
      remote: { url: "https://example.com/mcp", bearerTokenEnvVar: "REMOTE_TOKEN", httpHeaders: { "X-Team": "a" }, enabled: false },
    });
  });

  it("reads the common JSON form, including type / headers / disabled", () => {
    const json = JSON.stringify({
      mcpServers: {
        fs: { command: "node", args: ["fs.js"], env: { A: "1" }, toolTimeoutSec: 5 },
        web: { type: "http", url: "http://127.0.0.1:9/mcp", headers: { H: "v" }, disabled: true },
      },
    });
    expect(parseMcpConfigJson(json, "mcp.json")).toEqual({
      fs: { command: "node", args: ["fs.js"], env: { A: "1" }, toolTimeoutSec: 5 },
      web: { url: "http://127.0.0.1:9/mcp", httpHeaders: { H: "v" }, enabled: false },
    });
  });

  it.each([
    [`[mcp_servers.a]\ncommand = 3`, "a", "command", "config.toml: mcp_servers.a.command: expected a string, got number 3"],
    [`[mcp_servers.a]\ncommand = "x"\nargs = "one"`, "a", "args", 'config.toml: mcp_servers.a.args: expected an array of strings, got string "one"'],
    [`[mcp_servers.a]\ncommand = "x"\ntool_timeout_sec = -1`, "a", "tool_timeout_sec", "config.toml: mcp_servers.a.tool_timeout_sec: expected a positive number of seconds, got number -1"],
    [`[mcp_servers.a]\ncomand = "x"`, "a", "comand", 'unknown key "comand"'],
    [`[mcp_servers."a.b"]\ncommand = "x"`, "a.b", undefined, 'mcp_servers.a.b: expected a server name matching ^[a-zA-Z0-9_-]+$, got "a.b"'],
    [`[mcp_servers.a]\nargs = []`, "a", undefined, 'mcp_servers.a: expected exactly one of "command" (stdio) or "url" (HTTP)'],
    [`[mcp_servers.a]\ncommand = "x"\nurl = "http://h"`, "a", undefined, "exactly one of"],
    [`[mcp_servers.a]\nurl = "ftp://h"`, "a", "url", 'mcp_servers.a.url: expected an http:// or https:// URL, got "ftp://h"'],
    [`[mcp_servers.a]\nurl = "http://h"\nargs = ["x"]`, "a", "args", "no args for an HTTP server"],
    [`[mcp_servers.a]\ncommand = "x"\nenv = { A = 1 }`, "a", "env", "mcp_servers.a.env: expected a table of string values, got a table"],
  ])("rejects bad TOML precisely: %s", (text, server, key, message) => {
    const err = errorOf(() => parseMcpConfigToml(text, "config.toml"));
    expect(err.message).toContain(message);
    expect(err.file).toBe("config.toml");
    expect(err.server).toBe(server);
    expect(err.key).toBe(key);
  });

  it("rejects broken files with the file name", () => {
    expect(errorOf(() => parseMcpConfigToml("[mcp_servers", "c.toml")).message).toMatch(/^c\.toml: invalid TOML: /);
    expect(errorOf(() => parseMcpConfigJson("{", "m.json")).message).toMatch(/^m\.json: invalid JSON: /);
    expect(errorOf(() => parseMcpConfigJson("[]", "m.json")).message).toBe('m.json: expected a JSON object with "mcpServers"');
    expect(errorOf(() => parseMcpConfigJson('{"mcpServers": {"a": {"type": "ws", "url": "http://h"}}}', "m.json")).message).toBe(
      'm.json: mcpServers.a.type: expected one of "stdio", "http", "streamable-http", "sse", got string "ws"',
    );
    expect(errorOf(() => validateMcpServersConfig({ a: { command: "x", required: "yes" } })).message).toBe(
      'servers.a.required: expected a boolean, got string "yes"',
    );
  });

  it("loads .toml and .json files and names unreadable ones", async () => {
    await writeFile(join(dir, "config.toml"), TOML);
    await writeFile(join(dir, "mcp.json"), JSON.stringify({ mcpServers: { a: { command: "x" } } }));
    expect(Object.keys(await loadMcpConfig(join(dir, "config.toml")))).toEqual(["docs", "remote"]);
    expect(await loadMcpConfig(join(dir, "mcp.json"))).toEqual({ a: { command: "x" } });
    await expect(loadMcpConfig(join(dir, "missing.toml"))).rejects.toThrow(/missing\.toml: cannot read MCP config: /);
    await expect(loadMcpConfig(join(dir, "config.yaml"))).rejects.toThrow(/expected a \.toml or \.json MCP config file/);
  });
});
