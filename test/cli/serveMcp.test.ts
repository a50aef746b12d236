import type { ChildProcess } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import {
  collect,
  DEMO_SERVER,
  MAIN,
  processesWith,
  ROOT,
  runCli,
  spawnCli,
  TSX,
  uniqueMarker,
  waitFor,
  withTempDir,
  type CliResult,
} from "./helpers.js";

const PLUGIN = path.join(ROOT, "test/fixtures/plugin-greeter.mjs");

/** `serve-mcp --http 0` in a child: its URL and the token it printed (when it made one). */
async function startHttp(
  args: string[],
  dir: string,
): Promise<{
  url: string;
  token: string | undefined;
  child: ChildProcess;
  exited: Promise<CliResult>;
  stderr: () => string;
}> {
  const child = spawnCli(["serve-mcp", "--http", "0", ...args], { cwd: dir, env: { TOOLCALL_MCP_TOKEN: "" } });
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
  return { url, token: /bearer token: (\S+)/.exec(stderr)?.[1], child, exited, stderr: () => stderr };
}

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
  // An unknown tool is a protocol error (MCP specification), not an isError result.
  await expect(client.callTool({ name: "nope", arguments: {} })).rejects.toMatchObject({
    code: -32602,
    message: expect.stringContaining("Unknown tool: nope"),
  });

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
      const server = [DEMO_SERVER];
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
        args: [MAIN, "serve-mcp", "--cwd", dir],
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

  it("serves Streamable HTTP on 127.0.0.1 with a bearer token and stops on SIGTERM", async () => {
    await withTempDir(async (dir) => {
      await writeFile(path.join(dir, "a.txt"), "hello\n");
      await writeFile(path.join(dir, "toolcall.toml"), "[tools]\nview_image = false\n");
      const server = await startHttp(["--plugin", PLUGIN], dir);
      // No token printed in the clear is usable without being sent.
      expect(server.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
      const client = new Client({ name: "test", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(server.url), {
          requestInit: { headers: { authorization: `Bearer ${server.token}` } },
        }),
      );
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).not.toContain("view_image");
        expect(text(await client.callTool({ name: "greet", arguments: { name: "Ada" } }))).toBe(
          `hello, Ada (from ${dir})`,
        );
        await exercise(client, dir);
      } finally {
        await client.close();
        server.child.kill("SIGTERM");
      }
      expect((await server.exited).code).toBe(0);
    });
  });

  it("refuses requests without the token (403, no OAuth challenge) or from a foreign Origin (403), caps and expires sessions", async () => {
    await withTempDir(async (dir) => {
      const server = await startHttp(
        ["--token", "s3cret", "--max-sessions", "1", "--session-idle-ms", "300", "--log-level", "info"],
        dir,
      );
      expect(server.token).toBeUndefined(); // given, so not printed
      const auth = { authorization: "Bearer s3cret" };
      const initialize = (headers: Record<string, string>): Promise<Response> =>
        fetch(server.url, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
          }),
        });
      expect((await initialize({})).status).toBe(403);
      expect((await initialize({ authorization: "Bearer wrong" })).status).toBe(403);
      const foreign = await initialize({ ...auth, origin: "https://evil.example" });
      expect(foreign.status).toBe(403);
      expect(await foreign.json()).toMatchObject({ error: { message: expect.stringMatching(/^Forbidden: origin/) } });

      const local = await initialize({ ...auth, origin: "http://localhost:3000" });
      expect(local.status).toBe(200);
      const sessionId = local.headers.get("mcp-session-id");
      expect(sessionId).toMatch(/./);
      await local.body?.cancel();
      // The cap: a second session is refused while the first lives.
      const second = await initialize(auth);
      expect(second.status).toBe(503);
      await second.body?.cancel();

      // Idle past --session-idle-ms: the session is closed, and its id is no longer known.
      const ping = (): Promise<Response> =>
        fetch(server.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-session-id": sessionId as string,
            "mcp-protocol-version": "2025-06-18",
            ...auth,
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }),
        });
      // Any request would keep it alive: wait for the server to report the expiry, then ask.
      await waitFor(() => Promise.resolve(server.stderr().includes("MCP session expired")), "the session to expire");
      const expired = await ping();
      expect(expired.status).toBe(404);
      expect(await expired.json()).toMatchObject({ error: { code: -32001, message: "Session not found" } });
      // Its slot is free again.
      const third = await initialize(auth);
      expect(third.status).toBe(200);
      await third.body?.cancel();
      server.child.kill("SIGTERM");
      expect((await server.exited).code).toBe(0);
    });
  });

  it("serves a plugin tool whose parameters are a zod schema: JSON Schema listed, args parsed by the schema", async () => {
    await withTempDir(async (dir) => {
      const client = new Client({ name: "test", version: "1.0.0" });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [MAIN, "serve-mcp", "--cwd", dir, "--plugin", path.join(ROOT, "test/fixtures/plugin-zod.mjs")],
          cwd: dir,
          stderr: "pipe",
        }),
      );
      try {
        const forecast = (await client.listTools()).tools.find((t) => t.name === "forecast");
        expect(forecast?.inputSchema).toMatchObject({
          type: "object",
          properties: { city: { type: "string", minLength: 1, description: "a city" }, unit: { enum: ["C", "F"] } },
          required: ["city"],
        });
        expect(text(await client.callTool({ name: "forecast", arguments: { city: "Oslo" } }))).toBe("Oslo: 21C");
        const markup = await client.callTool({ name: "forecast", arguments: { city: "Oslo", note: "<b>" } });
        expect(markup.isError).toBe(true);
        expect(text(markup)).toBe("invalid arguments for forecast: /note must not contain markup");
      } finally {
        await client.close();
      }
    });
  });

  it("serves a plugin's tools over stdio and refuses a module that is not a plugin", async () => {
    await withTempDir(async (dir) => {
      const client = new Client({ name: "test", version: "1.0.0" });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [MAIN, "serve-mcp", "--cwd", dir, "--plugin", PLUGIN],
          cwd: dir,
          stderr: "pipe",
        }),
      );
      try {
        const greet = (await client.listTools()).tools.find((t) => t.name === "greet");
        expect(greet?.description).toBe("Greets someone by name");
        expect(text(await client.callTool({ name: "greet", arguments: { name: "Lin" } }))).toBe(
          `hello, Lin (from ${dir})`,
        );
        const bad = await client.callTool({ name: "greet", arguments: {} });
        expect(bad.isError).toBe(true);
        expect(text(bad)).toMatch(/^invalid arguments for greet: .*name/);
      } finally {
        await client.close();
      }
      await writeFile(path.join(dir, "not-a-plugin.mjs"), "export const x = 1;\n");
      const refused = await runCli(["serve-mcp", "--plugin", "not-a-plugin.mjs"], { cwd: dir });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/--plugin not-a-plugin\.mjs: expected a default export \(or "register"\)/);
      const missing = await runCli(["serve-mcp", "--plugin", "nope.mjs"], { cwd: dir });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/--plugin nope\.mjs: cannot load /);
      const stdioToken = await runCli(["serve-mcp", "--token", "x"], { cwd: dir });
      expect(stdioToken.stderr).toMatch(/--token: only with --http/);
    });
  });
});
