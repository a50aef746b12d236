import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { collect, MAIN, processesWith, ROOT, spawnCli, TSX, uniqueMarker, waitFor, withTempDir } from "./helpers.js";

const text = (r: unknown): string =>
  ((r as CallToolResult).content as Array<{ type: string; text?: string }>).map((c) => c.text ?? "").join("\n");

/** list, call (function and freeform tools), cancel: the same checks over either transport. */
async function exercise(client: Client, dir: string): Promise<void> {
  const { tools } = await client.listTools();
  const byName = new Map(tools.map((t) => [t.name, t]));
  expect(byName.get("read_file")?.annotations?.readOnlyHint).toBe(true);
  expect(byName.get("shell")?.annotations?.readOnlyHint).toBe(false);
  expect(byName.get("apply_patch")?.annotations?.readOnlyHint).toBe(false);
  expect(byName.get("apply_patch")?.inputSchema.required).toEqual(["input"]);

  const read = await client.callTool({ name: "read_file", arguments: { file_path: path.join(dir, "a.txt") } });
  expect(read.isError).toBe(false);
  expect(text(read)).toBe("L1: hello");

  const patch = await client.callTool({
    name: "apply_patch",
    arguments: { input: "*** Begin Patch\n*** Add File: made.txt\n+by mcp\n*** End Patch" },
  });
  expect(patch.isError).toBe(false);
  expect(await readFile(path.join(dir, "made.txt"), "utf8")).toBe("by mcp\n");

  const invalid = await client.callTool({ name: "read_file", arguments: { file_path: 7 } });
  expect(invalid.isError).toBe(true);
  expect(text(invalid)).toMatch(/^invalid arguments for read_file: \/file_path must be string/);
  const unknown = await client.callTool({ name: "nope", arguments: {} });
  expect(unknown.isError).toBe(true);
  expect(text(unknown)).toBe("unsupported call: nope");

  // Cancel: the client sends notifications/cancelled; the runtime aborts and kills the child.
  const marker = uniqueMarker();
  const controller = new AbortController();
  const pending = client.callTool({ name: "shell", arguments: { command: ["sleep", marker] } }, undefined, {
    signal: controller.signal,
  });
  pending.catch(() => undefined);
  await waitFor(async () => (await processesWith(marker)).length > 0, "the sleep to start");
  controller.abort("user cancelled");
  await expect(pending).rejects.toThrow();
  await waitFor(async () => (await processesWith(marker)).length === 0, "the sleep to be killed");

  // The server keeps serving after a cancellation.
  const after = await client.callTool({ name: "shell", arguments: { command: ["echo", "still here"] } });
  expect(text(after)).toMatch(/Output:\nstill here/);
}

describe("toolcall serve-mcp (child process, SDK client)", () => {
  it("serves built-in and proxied MCP tools over stdio", async () => {
    await withTempDir(async (dir) => {
      await writeFile(path.join(dir, "a.txt"), "hello\n");
      const server = ["--import", TSX, path.join(ROOT, "src/cli/demo/server.ts")];
      const fixture = ["--import", TSX, path.join(ROOT, "test/fixtures/mcp-server.ts"), "stdio"];
      await writeFile(
        path.join(dir, "toolcall.toml"),
        [
          `[mcp_servers.demo]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify(server)}`,
          // Parallel by the server's opt-in, not read-only: its un-annotated tools may write.
          `[mcp_servers.fx]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify(fixture)}`,
          "supports_parallel_tool_calls = true\n",
        ].join("\n"),
      );
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: ["--import", TSX, MAIN, "serve-mcp", "--cwd", dir],
        cwd: dir,
        stderr: "pipe",
      });
      const client = new Client({ name: "test", version: "1.0.0" });
      await client.connect(transport);
      try {
        await exercise(client, dir);
        const { tools } = await client.listTools();
        const hint = (name: string): unknown => tools.find((t) => t.name === name)?.annotations?.readOnlyHint;
        expect(hint("mcp__demo__word_count")).toBe(true);
        expect(hint("mcp__fx__barrier")).toBe(true);
        expect(hint("mcp__fx__echo")).toBe(false);
        const proxied = await client.callTool({ name: "mcp__demo__word_count", arguments: { text: "a b" } });
        expect(text(proxied)).toBe("2 words, 1 lines");
        // The proxied server's progress reaches the client that asked for it. The SDK client drops
        // a notification read together with the result, so the last step may not arrive.
        const progress: number[] = [];
        const slow = await client.callTool(
          { name: "mcp__demo__slow_review", arguments: { topic: "t", delay_ms: 300 } },
          undefined,
          {
            onprogress: (p) => progress.push(p.progress),
          },
        );
        expect(text(slow)).toMatch(/^Review of t:/);
        expect(progress.slice(0, 3)).toEqual([1, 2, 3]);
      } finally {
        await client.close();
      }
    });
  });

  it("serves Streamable HTTP on 127.0.0.1 and stops on SIGTERM", async () => {
    await withTempDir(async (dir) => {
      await writeFile(path.join(dir, "a.txt"), "hello\n");
      await writeFile(path.join(dir, "toolcall.toml"), "[tools]\nview_image = false\n");
      const child = spawnCli(["serve-mcp", "--http", "0"], { cwd: dir });
      const exited = collect(child);
      let stderr = "";
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr?.on("data", (chunk: Buffer) => {
          stderr += chunk.toString();
          const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
          if (m) resolve(m[1] as string);
        });
        child.on("exit", () => {
          reject(new Error(`serve-mcp exited: ${stderr}`));
        });
      });
      const client = new Client({ name: "test", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).not.toContain("view_image");
        await exercise(client, dir);
      } finally {
        await client.close();
        child.kill("SIGTERM");
      }
      expect((await exited).code).toBe(0);
    });
  });
});
