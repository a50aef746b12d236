import { stat, writeFile, chmod } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadMcpConfig } from "../../src/subpaths/mcp.js";
import { McpConnectionManager } from "../../src/index.js";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { pythonWithMcp } from "../support/pythonMcp.js";
import { MAIN, ROOT, runCli, withTempDir } from "./helpers.js";

const PYTHON = await pythonWithMcp();

describe("serve-mcp for desktop clients", () => {
  it("--print-config claude: the snippet, saved as a Claude Desktop config, loads and serves our tools", async () => {
    await withTempDir(async (dir) => {
      const printed = await runCli(["serve-mcp", "--print-config", "claude", "--permissions", "read_only"]);
      expect(printed.code).toBe(0);
      const snippet = JSON.parse(printed.stdout) as { mcpServers: { toolcall: { command: string; args: string[] } } };
      // Absolute paths to this node and this bin: no `npx toolcall`, which may fetch a stranger's package.
      expect(snippet.mcpServers.toolcall).toEqual({
        command: process.execPath,
        args: [MAIN, "serve-mcp", "--permissions", "read_only"],
      });
      const file = path.join(dir, "claude_desktop_config.json");
      await writeFile(file, printed.stdout);
      const manager = McpConnectionManager.start(await loadMcpConfig(file));
      try {
        await manager.waitForStartup();
        const names = [...manager.listAllTools().keys()];
        expect(names).toContain("mcp__toolcall__read_file");
      } finally {
        await manager.close();
      }
    });
  });

  // CI has python3 and reaches a package index: there the test must run, not skip.
  it.skipIf("problem" in PYTHON && process.env["CI"] !== "true")(
    `--print-config claude: the official MCP Python SDK's stdio client, given the snippet, lists our tools${
      "problem" in PYTHON ? ` [skipped: ${PYTHON.problem}]` : ""
    }`,
    async () => {
      if ("problem" in PYTHON) throw new Error(PYTHON.problem);
      await withTempDir(async (dir) => {
        const printed = await runCli(["serve-mcp", "--print-config", "claude", "--permissions", "read_only"]);
        const file = path.join(dir, "claude_desktop_config.json");
        await writeFile(file, printed.stdout);
        const script = path.join(ROOT, "test/fixtures/python/mcp_list_tools.py");
        const { stdout } = await promisify(execFile)(PYTHON.python, [script, file], { cwd: dir });
        const names = JSON.parse(stdout) as string[];
        expect(names).toEqual(expect.arrayContaining(["read_file", "list_dir", "shell"]));
      });
    },
  );

  it("--print-config vscode and claude-code, and a clear error for another client", async () => {
    const vscode = JSON.parse((await runCli(["serve-mcp", "--print-config", "vscode"])).stdout) as Record<
      string,
      unknown
    >;
    expect(vscode).toEqual({
      servers: { toolcall: { type: "stdio", command: process.execPath, args: [MAIN, "serve-mcp"] } },
    });
    const code = await runCli(["serve-mcp", "--print-config", "claude-code"]);
    expect(code.stdout.trim()).toBe(`claude mcp add toolcall -- ${process.execPath} ${MAIN} serve-mcp`);
    const bad = await runCli(["serve-mcp", "--print-config", "emacs"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--print-config: expected one of claude, cursor, vscode, claude-code");
  });

  it("--token-file creates a 0600 token once and refuses a file others can read", async () => {
    await withTempDir(async (dir) => {
      const { tokenFromFile } = await import("../../src/cli/clientConfig.js");
      const file = path.join(dir, "token");
      const first = await tokenFromFile(file);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect(await tokenFromFile(file)).toBe(first);
      await chmod(file, 0o644);
      await expect(tokenFromFile(file)).rejects.toThrow(
        `--token-file: ${file} is readable by others (mode 644): chmod 600 it`,
      );
    });
  });
});
