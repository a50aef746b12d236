import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpConnectionManager, type McpServerConfig } from "../../src/index.js";
import { EVERYTHING, eventually } from "./helpers.js";

/** server-everything in its Streamable HTTP mode on a free loopback port. */
async function everythingOverHttp(): Promise<{ url: string; child: ChildProcess }> {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => {
        resolve(port);
      });
    });
  });
  const child = spawn(process.execPath, [EVERYTHING, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let err = "";
    child.stderr?.on("data", (d: Buffer) => {
      err += d.toString();
      if (err.includes("listening")) resolve();
    });
    child.once("exit", () => {
      reject(new Error(`server-everything exited: ${err}`));
    });
  });
  return { url: `http://127.0.0.1:${port}/mcp`, child };
}

const text = (r: { content: unknown[] }): string =>
  r.content.map((c) => (c as { text?: string }).text ?? "").join("\n");

let http: { url: string; child: ChildProcess } | undefined;
let rootA: string;
let rootB: string;
beforeAll(async () => {
  http = await everythingOverHttp();
  rootA = mkdtempSync(join(tmpdir(), "tc-root-a-"));
  rootB = mkdtempSync(join(tmpdir(), "tc-root-b-"));
});
afterAll(() => {
  http?.child.kill();
  rmSync(rootA, { recursive: true, force: true });
  rmSync(rootB, { recursive: true, force: true });
});

const transports: Array<[string, () => McpServerConfig]> = [
  ["stdio", () => ({ command: process.execPath, args: [EVERYTHING, "stdio"] })],
  ["streamable HTTP", () => ({ url: (http as { url: string }).url })],
];

describe.each(transports)("client capabilities against server-everything over %s", (_, server) => {
  it("elicitation (schema defaults filled in), sampling and roots reach the embedder's callbacks", async () => {
    const asked: Array<{ server: string; message: string }> = [];
    const sampled: unknown[] = [];
    const m = McpConnectionManager.start(
      { ev: { ...server(), toolTimeoutSec: 0.5 } },
      {
        roots: [rootA],
        onElicitation: async (params, { server }) => {
          asked.push({ server, message: params.message });
          // A person takes longer than the call's timeout: the timeout waits for them.
          await new Promise((r) => setTimeout(r, 1_200));
          return { action: "accept", content: { name: "Ada" } };
        },
        onSampling: async (params) => {
          sampled.push(params.messages[0]?.content);
          return { role: "assistant", content: { type: "text", text: "sampled!" }, model: "test-model" };
        },
      },
    );
    try {
      await m.waitForStartup();
      await eventually(
        () =>
          ["trigger-elicitation-request", "trigger-sampling-request", "get-roots-list"].every((t) =>
            m.resolve(`mcp__ev__${t}`),
          ),
        "the capability tools listed",
      );
      const elicited = text(await m.callTool("ev", "trigger-elicitation-request", {}));
      expect(asked).toEqual([{ server: "ev", message: "Please provide inputs for the following fields:" }]);
      expect(elicited).toContain("- Name: Ada");
      expect(elicited).toContain("- Favorite Integer: 42"); // the schema's default, filled in (SEP-1034)

      const sample = text(await m.callTool("ev", "trigger-sampling-request", { prompt: "hi", maxTokens: 5 }));
      expect(sample).toContain("sampled!");
      expect(sampled).toEqual([{ type: "text", text: "Resource trigger-sampling-request context: hi" }]);

      expect(text(await m.callTool("ev", "get-roots-list", {}))).toContain(pathToFileURL(rootA).href);
      await m.setRoots([rootB]);
      await eventually(
        async () => text(await m.callTool("ev", "get-roots-list", {})).includes(pathToFileURL(rootB).href),
        "the new roots seen by the server",
      );
    } finally {
      await m.close();
    }
  });

  it("without an elicitation callback the server gets a decline, and sampling is not offered", async () => {
    const m = McpConnectionManager.start({ ev: server() });
    try {
      await m.waitForStartup();
      await eventually(() => m.resolve("mcp__ev__trigger-elicitation-request") !== undefined, "elicitation tool");
      expect(text(await m.callTool("ev", "trigger-elicitation-request", {}))).toContain("declined");
      expect(m.resolve("mcp__ev__trigger-sampling-request")).toBeUndefined();
    } finally {
      await m.close();
    }
  });
});
