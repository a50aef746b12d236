import { chmod, lstat, readFile, readlink, stat, symlink, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadCliConfig } from "../../src/cli/config.js";
import { runCli, withTempDir } from "./helpers.js";

const EXISTING = `# my toolcall config
[tools]
grep_files = true # keep me

[mcp_servers.docs]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-everything"]

[mcp_servers.docs.env]
LEVEL = "debug"

# the remote one, keep this comment
[mcp_servers.remote]
url = "https://mcp.example.com/mcp"
`;

describe("toolcall mcp add|list|remove (built CLI)", () => {
  it("add keeps the file's text and appends the table; the server's own flags go after --", async () => {
    await withTempDir(async (dir) => {
      const file = path.join(dir, "toolcall.toml");
      await writeFile(file, EXISTING);
      await chmod(file, 0o640);
      const add = await runCli(
        ["mcp", "add", "fs", "-e", "ROOT=/srv", "--", "npx", "-y", "@mcp/fs", "--help", "/tmp"],
        { cwd: dir },
      );
      expect(add.stderr).toBe(`added MCP server 'fs' to ${file}\n`);
      expect(add.code).toBe(0);
      const text = await readFile(file, "utf8");
      expect(text.startsWith(EXISTING)).toBe(true); // comments and other tables untouched
      expect((await stat(file)).mode & 0o777).toBe(0o640);
      const config = await loadCliConfig({ dir });
      expect(config.mcpServers["fs"]).toMatchObject({
        command: "npx",
        args: ["-y", "@mcp/fs", "--help", "/tmp"],
        env: { ROOT: "/srv" },
      });
      expect(Object.keys(config.mcpServers)).toEqual(["docs", "remote", "fs"]);

      const http = await runCli(
        ["mcp", "add", "api", "-H", "X-Team: tools", "--bearer-token-env-var", "API_TOKEN", "https://api.example/mcp"],
        { cwd: dir },
      );
      expect(http.code).toBe(0);
      expect((await loadCliConfig({ dir })).mcpServers["api"]).toMatchObject({
        url: "https://api.example/mcp",
        bearerTokenEnvVar: "API_TOKEN",
        httpHeaders: { "X-Team": "tools" },
      });

      const list = await runCli(["mcp", "list"], { cwd: dir });
      expect(list.code).toBe(0);
      expect(list.stdout.split("\n")).toEqual([
        "docs    stdio  npx -y @modelcontextprotocol/server-everything",
        "remote  http   https://mcp.example.com/mcp",
        "fs      stdio  npx -y @mcp/fs --help /tmp",
        "api     http   https://api.example/mcp",
        "",
      ]);
      const json = await runCli(["mcp", "list", "--json"], { cwd: dir });
      expect(Object.keys(JSON.parse(json.stdout) as object)).toEqual(["docs", "remote", "fs", "api"]);
    });
  });

  it("remove drops the table and its sub-tables, keeping the next table's comment", async () => {
    await withTempDir(async (dir) => {
      const file = path.join(dir, "toolcall.toml");
      await writeFile(file, EXISTING);
      const res = await runCli(["mcp", "remove", "docs"], { cwd: dir });
      expect(res.code).toBe(0);
      expect(await readFile(file, "utf8")).toBe(`# my toolcall config
[tools]
grep_files = true # keep me

# the remote one, keep this comment
[mcp_servers.remote]
url = "https://mcp.example.com/mcp"
`);
      const missing = await runCli(["mcp", "remove", "docs"], { cwd: dir });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toBe(`toolcall mcp: no MCP server 'docs' in ${file} (servers: remote)\n`);
    });
  });

  it("creates toolcall.toml when absent, and edits a symlinked config where it lives", async () => {
    await withTempDir(async (dir) => {
      const res = await runCli(["mcp", "add", "web", "http://127.0.0.1:8080/mcp"], { cwd: dir });
      expect(res.code).toBe(0);
      expect(await readFile(path.join(dir, "toolcall.toml"), "utf8")).toBe(
        '[mcp_servers.web]\nurl = "http://127.0.0.1:8080/mcp"\n',
      );
      await writeFile(path.join(dir, "real.toml"), EXISTING);
      await symlink("real.toml", path.join(dir, "link.toml"));
      const linked = await runCli(["mcp", "remove", "remote", "--config", "link.toml"], { cwd: dir });
      expect(linked.code).toBe(0);
      expect((await lstat(path.join(dir, "link.toml"))).isSymbolicLink()).toBe(true);
      expect(await readlink(path.join(dir, "link.toml"))).toBe("real.toml");
      expect(await readFile(path.join(dir, "real.toml"), "utf8")).not.toContain("[mcp_servers.remote]");
    });
  });

  it("refuses, leaving the file as it was, whatever it cannot do safely", async () => {
    await withTempDir(async (dir) => {
      const file = path.join(dir, "toolcall.toml");
      const inline = `${EXISTING}
[mcp_servers.inline_ones]
dummy = 1
`;
      await writeFile(file, EXISTING);
      const cases: Array<[string[], string]> = [
        [
          ["mcp", "add", "docs", "--", "x"],
          `MCP server 'docs' already exists in ${file}; \`toolcall mcp remove docs\` first`,
        ],
        [["mcp", "add", "bad name", "--", "x"], 'a server name is letters, digits, _ and -, got "bad name"'],
        [["mcp", "add", "x"], "mcp add x: expected a URL or a command"],
        [["mcp", "add", "x", "-t", "http", "ftp://h/"], 'mcp add x: expected an http(s) URL, got "ftp://h/"'],
        [["mcp", "add", "x", "-e", "NOEQUALS", "--", "cmd"], '--env: expected KEY=VALUE, got "NOEQUALS"'],
        [["mcp", "add", "x", "-e", "A=1", "https://h/mcp"], "--env is for stdio servers"],
        [["mcp", "add", "x", "npx", "-y", "pkg"], "Unknown option '-y'"],
        [["mcp", "add", "x", "--config", "c.json", "--", "cmd"], "is not a .toml file"],
      ];
      for (const [args, message] of cases) {
        const res = await runCli(args, { cwd: dir });
        expect(res.stderr, args.join(" ")).toContain(message);
        expect(res.code, args.join(" ")).toBe(2);
      }
      expect(await readFile(file, "utf8")).toBe(EXISTING);

      // The result must load as a config: a server table the loader refuses stays out.
      await writeFile(file, inline);
      const unloadable = await runCli(["mcp", "add", "y", "--", "cmd"], { cwd: dir });
      expect(unloadable.code).toBe(2);
      expect(unloadable.stderr).toContain("mcp add: the result would not load:");
      expect(unloadable.stderr).toContain(file);
      expect(unloadable.stderr).not.toMatch(/\.toolcall\.toml\.[0-9a-f]+\.toml/);
      expect(await readFile(file, "utf8")).toBe(inline);

      // A server written inline is not a table this command can cut out.
      const dotted = `[mcp_servers]\nlocal = { command = "srv" }\n`;
      await writeFile(file, dotted);
      const remove = await runCli(["mcp", "remove", "local"], { cwd: dir });
      expect(remove.code).toBe(2);
      expect(remove.stderr).toContain("cannot edit safely (not as [mcp_servers.local] tables); edit it by hand");
      expect(await readFile(file, "utf8")).toBe(dotted);

      await writeFile(file, "[tools\n");
      const broken = await runCli(["mcp", "add", "z", "--", "cmd"], { cwd: dir });
      expect(broken.code).toBe(2);
      expect(broken.stderr).toContain(`${file}: invalid TOML`);
    });
  });

  it("mcp login against an unreachable server names the server, its URL and the cause", async () => {
    // A port that was just free: nothing listens there now.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port: free } = server.address() as { port: number };
        server.close(() => {
          resolve(free);
        });
      });
    });
    await withTempDir(async (dir) => {
      const url = `http://127.0.0.1:${port}/mcp`;
      await runCli(["mcp", "add", "closed", url], { cwd: dir });
      const res = await runCli(["mcp", "login", "closed"], { cwd: dir, env: { TOOLCALL_HOME: dir } });
      expect(res.code).toBe(1);
      expect(res.stderr).toBe(
        `toolcall mcp login: MCP server 'closed' at ${url}: fetch failed (connect ECONNREFUSED 127.0.0.1:${port})\n`,
      );
    });
  });
});
