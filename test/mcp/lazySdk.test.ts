import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVERYTHING } from "./helpers.js";

const DIST = fileURLToPath(new URL("../../dist/index.js", import.meta.url));
/** The SDK modules only a running client (or an HTTP server) needs. */
const CLIENT_MODULES = [
  "@modelcontextprotocol/sdk/client/index.js",
  "@modelcontextprotocol/sdk/client/stdio.js",
  "@modelcontextprotocol/sdk/client/streamableHttp.js",
  "@modelcontextprotocol/sdk/client/sse.js",
  "@modelcontextprotocol/sdk/server/streamableHttp.js",
];

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "toolcall-lazy-sdk-"));
  // A module-resolution hook that names every SDK module a file of ours imports, on stderr.
  await writeFile(
    path.join(dir, "hook.mjs"),
    `export async function resolve(spec, ctx, next) {
      if (spec.startsWith("@modelcontextprotocol/sdk/") && !ctx.parentURL?.includes("/node_modules/")) console.error("SDK " + spec);
      return next(spec, ctx);
    }`,
  );
  await writeFile(
    path.join(dir, "register.mjs"),
    `import { register } from "node:module"; register(${JSON.stringify(new URL("hook.mjs", `file://${dir}/`).href)});`,
  );
  await writeFile(
    path.join(dir, "main.mjs"),
    `const lib = await import(${JSON.stringify(DIST)});
    console.error("IMPORTED");
    const manager = lib.McpConnectionManager.start({ everything: { command: process.execPath, args: [${JSON.stringify(EVERYTHING)}, "stdio"], startupTimeoutSec: 120 } });
    await manager.waitForStartup();
    const result = await manager.callTool("everything", "echo", { message: "lazy" });
    console.error("CALLED " + JSON.stringify(result.content));
    await manager.close();`,
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("import of the library: the SDK's client modules load with the first MCP server", () => {
  it("imports none of them up front, then the client's when a stdio server starts; the call works", async () => {
    const { stderr } = await promisify(execFile)(
      process.execPath,
      ["--import", path.join(dir, "register.mjs"), path.join(dir, "main.mjs")],
      { cwd: dir, timeout: 180_000 },
    );
    const [before = "", after = ""] = stderr.split("IMPORTED");
    const loaded = (text: string): string[] => [...text.matchAll(/^SDK (\S+)$/gm)].map((m) => m[1] as string);
    // The hook works: the modules the library still needs at once are seen.
    expect(loaded(before)).toContain("@modelcontextprotocol/sdk/types.js");
    expect(loaded(before).filter((m) => CLIENT_MODULES.includes(m))).toEqual([]);
    expect(loaded(after)).toEqual(
      expect.arrayContaining([
        "@modelcontextprotocol/sdk/client/index.js",
        "@modelcontextprotocol/sdk/client/stdio.js",
      ]),
    );
    expect(after).toContain('CALLED [{"type":"text","text":"Echo: lazy"}]');
  });
});
