// `toolcall serve-mcp --journal DIR` (DESIGN section 17), on the built CLI: a SIGKILLed server
// started again answers a retried call from the journal and never runs a mutating call twice.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { killProcessesWith, MAIN, processesWith, runCli, uniqueMarker, waitFor, withTempDir } from "./helpers.js";

const FLAGS = ["--sandbox", "danger-full-access", "--permissions", "bypass"];

const text = (r: unknown): string =>
  ((r as CallToolResult).content as Array<{ type: string; text?: string }>).map((c) => c.text ?? "").join("\n");

async function connect(dir: string): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN, "serve-mcp", ...FLAGS, "--journal", path.join(dir, "journal")],
    cwd: dir,
    stderr: "ignore",
  });
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

const shell = (key: string, script: string) => ({
  name: "shell",
  arguments: { command: ["sh", "-c", script] },
  _meta: { "toolcall/callId": key },
});

describe("serve-mcp --journal", () => {
  it("after a SIGKILL, a retried finished call gets its output again and the running mutating call is interrupted", async () => {
    await withTempDir(async (dir) => {
      const effects = path.join(dir, "effects.txt");
      const marker = uniqueMarker();
      const first = await connect(dir);
      const done = await first.client.callTool(shell("k1", "echo one >> effects.txt; echo first"));
      expect(text(done)).toContain("first");
      // The second call is running (its side effect is there) when the server dies.
      const lost = first.client.callTool(shell("k2", `echo two >> effects.txt; exec sleep ${marker}`), undefined, {
        timeout: 600_000,
      });
      lost.catch(() => undefined);
      await waitFor(async () => (await processesWith(marker)).length > 0, "the second command to start");
      process.kill(first.transport.pid!, "SIGKILL");
      await first.client.close();
      await waitFor(async () => (await processesWith(marker)).length === 0, "the orphaned sleep to be killed");

      const second = await connect(dir);
      try {
        expect(await second.client.callTool(shell("k1", "echo one >> effects.txt; echo first"))).toEqual(done);
        const retried = await second.client.callTool(shell("k2", `echo two >> effects.txt; exec sleep ${marker}`));
        expect(retried.isError).toBe(true);
        expect(text(retried)).toBe(
          "interrupted: shell was running when the agent stopped; it may or may not have taken effect. Check before running it again.",
        );
        expect(existsSync(effects) && readFileSync(effects, "utf8")).toBe("one\ntwo\n");
      } finally {
        await second.client.close();
        await killProcessesWith(marker);
      }
    });
  });

  it("--journal must name a directory the server can use", async () => {
    await withTempDir(async (dir) => {
      writeFileSync(path.join(dir, "file"), "");
      const result = await runCli(["serve-mcp", "--journal", path.join(dir, "file", "sub")], { cwd: dir });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("--journal: cannot use");
    });
  });
});
