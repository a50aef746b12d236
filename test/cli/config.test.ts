import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadCliConfig } from "../../src/cli/config.js";
import { runCli, withTempDir } from "./helpers.js";

const FULL_TOML = `
[tools]
shell = "shell_command"
apply_patch = "function"
edit_file = true
write_file = true
read_file = true
list_dir = false
grep_files = true
glob = true
view_image = false
update_plan = true
test_sync_tool = true
shell_non_safe_exclusive = true
preset = "codex"
request_user_input = true
user_input_timeout_ms = 60000
image_detail = "original"

[runtime]
max_concurrency = 4
truncation = { mode = "tokens", limit = 2500 }
exec_timeout_ms = 5000

[mcp_servers.docs]
command = "node"
args = ["server.js"]
tool_timeout_sec = 30
enabled_tools = ["search"]
`;

describe("loadCliConfig", () => {
  it("maps every [tools] and [runtime] key to the camelCase config, servers through the MCP parser", async () => {
    await withTempDir(async (dir) => {
      await writeFile(path.join(dir, "toolcall.toml"), FULL_TOML);
      const config = await loadCliConfig({ dir });
      expect(config.file).toBe(path.join(dir, "toolcall.toml"));
      expect(config.tools).toEqual({
        shell: "shell_command",
        applyPatch: "function",
        editFile: true,
        writeFile: true,
        readFile: true,
        listDir: false,
        grepFiles: true,
        glob: true,
        viewImage: false,
        updatePlan: true,
        testSyncTool: true,
        shellNonSafeExclusive: true,
        execTimeoutMs: 5000,
        preset: "codex",
        requestUserInput: true,
        userInputTimeoutMs: 60000,
        imageDetail: "original",
      });
      expect(config.runtime).toEqual({ maxConcurrency: 4, truncation: { mode: "tokens", limit: 2500 } });
      expect(config.mcpServers).toEqual({
        docs: { command: "node", args: ["server.js"], toolTimeoutSec: 30, enabledTools: ["search"] },
      });
    });
  });

  it("reads JSON with mcpServers in the common client format", async () => {
    await withTempDir(async (dir) => {
      const file = path.join(dir, "cfg.json");
      await writeFile(
        file,
        JSON.stringify({ tools: { shell: false }, mcpServers: { web: { url: "http://127.0.0.1:9/mcp" } } }),
      );
      const config = await loadCliConfig({ dir, configPath: "cfg.json" });
      expect(config.tools).toEqual({ shell: false });
      expect(config.mcpServers).toEqual({ web: { url: "http://127.0.0.1:9/mcp" } });
    });
  });

  it("uses embedded defaults when no toolcall.toml exists, but a missing --config file is an error", async () => {
    await withTempDir(async (dir) => {
      await expect(loadCliConfig({ dir })).resolves.toEqual({
        file: undefined,
        tools: {},
        runtime: {},
        mcpServers: {},
      });
      await expect(loadCliConfig({ dir, configPath: "nope.toml" })).rejects.toThrow(/nope\.toml: cannot read config/);
    });
  });

  it("warns about unknown keys outside the security sections, naming file and key, and loads the rest", async () => {
    await withTempDir(async (dir) => {
      await writeFile(
        path.join(dir, "toolcall.toml"),
        "[tool]\nread_file = true\n[tools]\nread_files = true\nlist_dir = false\n[runtime.truncation]\nlimit = 5\nmax = 1\n",
      );
      const config = await loadCliConfig({ dir });
      expect(config.tools).toEqual({ listDir: false });
      expect(config.runtime).toEqual({ truncation: { mode: "bytes", limit: 5 } });
      const file = path.join(dir, "toolcall.toml");
      expect(config.warnings).toHaveLength(3);
      expect(config.warnings).toEqual(
        expect.arrayContaining([
          `${file}: unknown key tool; ignored (known keys: tools, runtime, quotas, permissions, hooks, mcp_servers, approval_policy, sandbox, sandbox_mode, sandbox_workspace_write, shell_environment_policy, docker)`,
          expect.stringMatching(
            /^.*toolcall\.toml: unknown key tools\.read_files; ignored \(known keys: preset, shell, /,
          ),
          `${file}: unknown key runtime.truncation.max; ignored (known keys: mode, limit)`,
        ]),
      );
    });
  });

  const bad: Array<[string, string, RegExp]> = [
    [
      "unknown permissions key (a misspelt rule list would silently allow more)",
      '[permissions]\ndenny = ["Bash"]\n',
      /toolcall\.toml: unknown key permissions\.denny \(known keys: mode, allow, ask, deny, approval_timeout_ms, risk_field, ask_at_risk\)/,
    ],
    ["wrong type", '[tools]\nread_file = "yes"\n', /toolcall\.toml: tools\.read_file: expected boolean, got string/],
    [
      "bad choice",
      '[tools]\nshell = "zsh"\n',
      /tools\.shell: expected one of "shell", "shell_command", "unified_exec", false, got string/,
    ],
    [
      "concurrency range",
      "[runtime]\nmax_concurrency = 0\n",
      /runtime\.max_concurrency: expected integer in 1\.\.256, got number/,
    ],
    [
      "truncation mode",
      '[runtime]\ntruncation = { mode = "lines", limit = 5 }\n',
      /runtime\.truncation\.mode: expected one of "bytes", "tokens"/,
    ],
    [
      "truncation limit missing",
      '[runtime]\ntruncation = { mode = "bytes" }\n',
      /runtime\.truncation\.limit: expected integer/,
    ],
    ["section not a table", "tools = 3\n", /toolcall\.toml: tools: expected table, got number/],
    ["conflicting timeouts", "[tools]\nexec_timeout_ms = 1\n[runtime]\nexec_timeout_ms = 2\n", /disagree/],
    [
      "bad server key",
      '[mcp_servers.x]\ncommand = "a"\ntimeout = 3\n',
      /toolcall\.toml: mcp_servers\.x\.timeout: expected one of the keys/,
    ],
    ["invalid TOML", "[tools\n", /toolcall\.toml: invalid TOML/],
  ];
  for (const [name, text, message] of bad) {
    it(`rejects ${name} naming file, key and expected type`, async () => {
      await withTempDir(async (dir) => {
        await writeFile(path.join(dir, "toolcall.toml"), text);
        const err = await loadCliConfig({ dir }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ConfigError);
        expect((err as Error).message).toMatch(message);
      });
    });
  }
});

describe("toolcall with a bad config (child process)", () => {
  it("exits 2 with one clear message on stderr and nothing on stdout", async () => {
    await withTempDir(async (dir) => {
      await writeFile(path.join(dir, "toolcall.toml"), '[runtime]\nmax_concurrency = "many"\n');
      await writeFile(path.join(dir, "c.json"), JSON.stringify({ sandbox: { mode: "read-only", network: true } }));
      const [fromCwd, json, usage, missing] = await Promise.all([
        runCli(["exec"], { cwd: dir, input: "" }),
        runCli(["tools", "--config", "c.json"], { cwd: dir }),
        runCli(["tools", "--bogus"], { cwd: dir }),
        runCli(["exec", "missing.jsonl", "--config", "c.json"], { cwd: dir }),
      ]);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/cannot read input file: ENOENT.*missing\.jsonl/);
      expect(fromCwd.code).toBe(2);
      expect(fromCwd.stdout).toBe("");
      expect(fromCwd.stderr).toContain(
        `${path.join(dir, "toolcall.toml")}: runtime.max_concurrency: expected integer in 1..256, got string`,
      );
      expect(json.code).toBe(2);
      expect(json.stderr).toMatch(
        /c\.json: unknown key sandbox\.network \(known keys: mode, writable_roots, network_access, readable_roots, allow_unix_sockets\)/,
      );
      expect(usage.code).toBe(2);
      expect(usage.stderr).toMatch(/Unknown option '--bogus'/);
    });
  });
});
