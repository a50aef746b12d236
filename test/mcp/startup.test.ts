import { describe, expect, it } from "vitest";
import { McpConnectionManager, type ToolEvent } from "../../src/index.js";
import { McpStartupError } from "../../src/subpaths/mcp.js";
import { call, EVERYTHING, fixtureServer, isAlive, runtimeFor } from "./helpers.js";

const HANG = { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"] };

describe("MCP start-up", () => {
  it("a hanging server never blocks a ready one; it fails at its own timeout", async () => {
    const events: ToolEvent[] = [];
    const m = McpConnectionManager.start(
      { hang: { ...HANG, startupTimeoutSec: 2 }, ok: { command: process.execPath, args: [EVERYTHING, "stdio"] } },
      { onEvent: (e) => events.push(e) },
    );
    try {
      // The ready server's tools are callable while the other is still starting.
      const { runtime } = await runtimeFor(m);
      await new Promise<void>((resolve) => {
        const check = (): void => {
          if (m.resolve("mcp__ok__echo")) resolve();
          else setTimeout(check, 20);
        };
        check();
      });
      expect(events.some((e) => e.type === "mcp_startup_complete")).toBe(false);
      runtime.submit(call("c", "mcp__ok__echo", { message: "early" }));
      expect(await runtime.drain()).toEqual([{ type: "function_call_output", call_id: "c", output: "Echo: early" }]);
      const summary = await m.waitForStartup();
      expect(summary.ready).toEqual(["ok"]);
      expect(summary.failed).toEqual([
        { server: "hang", error: "timed out after 2s waiting for initialize and tools/list" },
      ]);
      const updates = events.filter((e) => e.type === "mcp_startup_update").map((e) => [e.server, e.status]);
      expect(updates).toEqual(
        expect.arrayContaining([
          ["hang", "starting"],
          ["ok", "starting"],
          ["ok", "ready"],
          ["hang", "failed"],
        ]),
      );
      expect(events.at(-1)).toMatchObject({ type: "mcp_startup_complete", callId: "", toolName: "", ready: ["ok"] });
    } finally {
      await m.close();
    }
  });

  it("reports a broken command clearly and rejects when that server is required", async () => {
    const m = McpConnectionManager.start({
      broken: { command: "/nonexistent/mcp-server-binary", required: true },
      exits: { command: process.execPath, args: ["-e", "console.error('bad token'); process.exit(2)"] },
    });
    try {
      const err = await m.waitForStartup().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(McpStartupError);
      const summary = (err as McpStartupError).summary;
      expect(summary.failed.find((f) => f.server === "broken")?.error).toMatch(
        /^failed to launch \/nonexistent\/mcp-server-binary: spawn .*ENOENT/,
      );
      expect(summary.failed.find((f) => f.server === "exits")?.error).toMatch(
        /process exited with code 2; stderr: bad token/,
      );
      expect((err as Error).message).toMatch(/^required MCP server 'broken' failed to start: /);
      await expect(m.callTool("exits", "x", {})).rejects.toThrow(/^MCP server 'exits' failed to start: /);
    } finally {
      await m.close();
    }
  });

  it("rejects invalid server names at config time and skips disabled servers", () => {
    expect(() => McpConnectionManager.start({ "bad.name": { command: "x" } })).toThrow(
      /servers\.bad\.name: expected a server name matching/,
    );
    const m = McpConnectionManager.start({ off: { command: "/nonexistent", enabled: false } });
    expect(m.serverNames()).toEqual([]);
    return m.close();
  });

  it("follows tools/list pages and stops on a repeated cursor", async () => {
    const m = McpConnectionManager.start({ pages: fixtureServer("paginated"), dup: fixtureServer("dup-cursor") });
    try {
      expect(await m.waitForStartup()).toMatchObject({ failed: [] });
      const tools = [...m.listAllTools().values()];
      expect(tools.filter((t) => t.server === "pages").map((t) => t.tool)).toEqual(
        Array.from({ length: 150 }, (_, i) => `t${String(i).padStart(3, "0")}`),
      );
      expect(tools.filter((t) => t.server === "dup").map((t) => t.tool)).toEqual(["dup_first", "dup_same"]);
      const pid = m.serverPid("pages") as number;
      await m.close();
      expect(isAlive(pid)).toBe(false);
    } finally {
      await m.close();
    }
  });
});
