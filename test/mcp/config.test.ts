import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  McpConfigError,
  parseMcpConfigJson,
  parseMcpConfigToml,
  validateMcpServersConfig,
} from "../../src/subpaths/mcp.js";
import { loadMcpConfig } from "../../src/mcp/index.js";

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
      remote: {
        url: "https://example.com/mcp",
        bearerTokenEnvVar: "REMOTE_TOKEN",
        httpHeaders: { "X-Team": "a" },
        enabled: false,
      },
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

  it("reads Codex's env_vars, env_http_headers and legacy startup_timeout_ms", () => {
    const text = `
[mcp_servers.local]
command = "npx"
env_vars = ["GEM_HOME", { name = "GEM_PATH" }, { name = "LANG", source = "local" }]
startup_timeout_ms = 20000

[mcp_servers.remote]
url = "https://example.com/mcp"
http_headers = { "X-Team" = "a" }
env_http_headers = { "X-Api-Key" = "REMOTE_API_KEY" }
startup_timeout_ms = 1500
`;
    expect(parseMcpConfigToml(text, "config.toml")).toEqual({
      local: { command: "npx", envVars: ["GEM_HOME", "GEM_PATH", "LANG"], startupTimeoutSec: 20 },
      remote: {
        url: "https://example.com/mcp",
        httpHeaders: { "X-Team": "a" },
        envHttpHeaders: { "X-Api-Key": "REMOTE_API_KEY" },
        startupTimeoutSec: 1.5,
      },
    });
  });

  it("takes the same options in camelCase (programmatic and JSON)", () => {
    expect(
      validateMcpServersConfig({
        s: { command: "x", envVars: ["A"], startupTimeoutMs: 250 },
        h: { url: "http://h/mcp", envHttpHeaders: { "X-K": "K" } },
      }),
    ).toEqual({
      s: { command: "x", envVars: ["A"], startupTimeoutSec: 0.25 },
      h: { url: "http://h/mcp", envHttpHeaders: { "X-K": "K" } },
    });
    const json = JSON.stringify({
      mcpServers: {
        s: { command: "x", envVars: ["A"], startupTimeoutMs: 3000 },
        h: { type: "http", url: "http://h/mcp", envHttpHeaders: { "X-K": "K" } },
      },
    });
    expect(parseMcpConfigJson(json, "mcp.json")).toEqual({
      s: { command: "x", envVars: ["A"], startupTimeoutSec: 3 },
      h: { url: "http://h/mcp", envHttpHeaders: { "X-K": "K" } },
    });
  });

  it.each([
    [
      `[mcp_servers.a]\ncommand = "x"\nstartup_timeout_sec = 5\nstartup_timeout_ms = 5000`,
      "startup_timeout_ms",
      "config.toml: mcp_servers.a.startup_timeout_ms: expected either startup_timeout_sec or startup_timeout_ms, not both",
    ],
    [
      `[mcp_servers.a]\ncommand = "x"\nstartup_timeout_ms = 1.5`,
      "startup_timeout_ms",
      "mcp_servers.a.startup_timeout_ms: expected a positive whole number of milliseconds, got number 1.5",
    ],
    [
      `[mcp_servers.a]\ncommand = "x"\nstartup_timeout_ms = 0`,
      "startup_timeout_ms",
      "expected a positive whole number of milliseconds, got number 0",
    ],
    [
      `[mcp_servers.a]\ncommand = "x"\nenv_vars = "HOME"`,
      "env_vars",
      'mcp_servers.a.env_vars: expected an array of environment variable names (strings, or tables { name, source = "local" }), got string "HOME"',
    ],
    [
      `[mcp_servers.a]\ncommand = "x"\nenv_vars = [""]`,
      "env_vars",
      'mcp_servers.a.env_vars[0]: expected an environment variable name (a string, or a table { name, source = "local" }), got string ""',
    ],
    [
      `[mcp_servers.a]\ncommand = "x"\nenv_vars = [{ name = "A", source = "remote" }]`,
      "env_vars",
      "mcp_servers.a.env_vars[0]: expected an environment variable name",
    ],
    [
      `[mcp_servers.a]\ncommand = "x"\nenv_vars = [{ nam = "A" }]`,
      "env_vars",
      "mcp_servers.a.env_vars[0]: expected an environment variable name",
    ],
    [
      `[mcp_servers.a]\nurl = "http://h"\nenv_http_headers = { X = 1 }`,
      "env_http_headers",
      "mcp_servers.a.env_http_headers.X: expected a string, got number 1",
    ],
    [
      `[mcp_servers.a]\nurl = "http://h"\nenv_vars = ["A"]`,
      "env_vars",
      'mcp_servers.a.env_vars: expected no env_vars for an HTTP server (it has "url")',
    ],
    [
      `[mcp_servers.a]\ncommand = "x"\nenv_http_headers = { X = "A" }`,
      "env_http_headers",
      'mcp_servers.a.env_http_headers: expected no env_http_headers for a stdio server (it has "command")',
    ],
    [`[mcp_servers.a]\ncommand = "x"\nbearer_token = "literal"`, "bearer_token", 'unknown key "bearer_token"'],
  ])("rejects bad Codex extras precisely: %s", (text, key, message) => {
    const err = errorOf(() => parseMcpConfigToml(text, "config.toml"));
    expect(err.message).toContain(message);
    expect(err.server).toBe("a");
    expect(err.key).toBe(key);
  });

  it("names the camelCase keys in programmatic errors", () => {
    expect(
      errorOf(() => validateMcpServersConfig({ a: { command: "x", startupTimeoutSec: 1, startupTimeoutMs: 1000 } }))
        .message,
    ).toBe("servers.a.startupTimeoutMs: expected either startupTimeoutSec or startupTimeoutMs, not both");
    expect(errorOf(() => validateMcpServersConfig({ a: { url: "http://h", envVars: ["A"] } })).key).toBe("envVars");
  });

  it.each([
    [
      `[mcp_servers.a]\ncommand = 3`,
      "a",
      "command",
      "config.toml: mcp_servers.a.command: expected a string, got number 3",
    ],
    [
      `[mcp_servers.a]\ncommand = "x"\nargs = "one"`,
      "a",
      "args",
      'config.toml: mcp_servers.a.args: expected an array of strings, got string "one"',
    ],
    [
      `[mcp_servers.a]\ncommand = "x"\ntool_timeout_sec = -1`,
      "a",
      "tool_timeout_sec",
      "config.toml: mcp_servers.a.tool_timeout_sec: expected a positive number of seconds, got number -1",
    ],
    [`[mcp_servers.a]\ncomand = "x"`, "a", "comand", 'unknown key "comand"'],
    [
      `[mcp_servers."a.b"]\ncommand = "x"`,
      "a.b",
      undefined,
      'mcp_servers.a.b: expected a server name matching ^[a-zA-Z0-9_-]+$, got "a.b"',
    ],
    [
      `[mcp_servers.a]\nargs = []`,
      "a",
      undefined,
      'mcp_servers.a: expected exactly one of "command" (stdio) or "url" (HTTP)',
    ],
    [`[mcp_servers.a]\ncommand = "x"\nurl = "http://h"`, "a", undefined, "exactly one of"],
    [
      `[mcp_servers.a]\nurl = "ftp://h"`,
      "a",
      "url",
      'mcp_servers.a.url: expected an http:// or https:// URL, got "ftp://h"',
    ],
    [`[mcp_servers.a]\nurl = "http://h"\nargs = ["x"]`, "a", "args", "no args for an HTTP server"],
    [
      `[mcp_servers.a]\ncommand = "x"\nenv = { A = 1 }`,
      "a",
      "env",
      "mcp_servers.a.env.A: expected a string, got number 1",
    ],
    // zod takes a Date for an object: a TOML date where a table belongs is still refused.
    [
      `[mcp_servers.a]\nurl = "http://h"\noauth = 1979-05-27`,
      "a",
      "oauth",
      "mcp_servers.a.oauth: expected a table of OAuth settings, got a date",
    ],
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
    expect(errorOf(() => parseMcpConfigJson("[]", "m.json")).message).toBe(
      'm.json: expected a JSON object with "mcpServers"',
    );
    expect(
      errorOf(() => parseMcpConfigJson('{"mcpServers": {"a": {"type": "ws", "url": "http://h"}}}', "m.json")).message,
    ).toBe('m.json: mcpServers.a.type: expected one of "stdio", "http", "streamable-http", "sse", got string "ws"');
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
    await expect(loadMcpConfig(join(dir, "config.yaml"))).rejects.toThrow(
      /expected a \.toml, \.json or \.jsonc MCP config file/,
    );
  });
});
