/**
 * Start-up (#14 item 3): a command loads only what it and its config need, and the bundled
 * `toolcall` (scripts/bundle-cli.mjs, the package bin) runs the same turns as the source.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collect, jsonLines, ROOT, TSX, withTempDir, type CliResult } from "./helpers.js";

/** From source, on purpose: this test is about which source modules a command imports. */
const MAIN = path.join(ROOT, "src/cli/main.ts");

/** Prints every module URL the child loads to stderr, as `LOADED url`. */
const LOAD_HOOK = `data:text/javascript,${encodeURIComponent(
  `import { register } from "node:module";
register("data:text/javascript," + encodeURIComponent(
  "export async function load(url, context, next) { process.stderr.write('LOADED ' + url + '\\\\n'); return next(url, context); }"
));`,
)}`;

function fn(callId: string, name: string, args: unknown): string {
  return JSON.stringify({ type: "function_call", call_id: callId, name, arguments: JSON.stringify(args) });
}

function run(argv: string[], cwd: string, input: string): Promise<CliResult> {
  const child = spawn(process.execPath, argv, { cwd, stdio: ["pipe", "pipe", "pipe"] });
  const done = collect(child);
  child.stdin.end(input);
  return done;
}

const loaded = (stderr: string): string[] =>
  stderr
    .split("\n")
    .filter((l) => l.startsWith("LOADED "))
    .map((l) => l.slice("LOADED ".length));

describe("what `toolcall exec` loads", () => {
  it("no MCP SDK without MCP servers; the client SDK, not the server's, with one", async () => {
    await withTempDir(async (dir) => {
      const turn = `${fn("c1", "update_plan", { plan: [{ step: "a", status: "pending" }] })}\n`;
      const bare = await run(["--import", TSX, "--import", LOAD_HOOK, MAIN, "exec"], dir, turn);
      expect(bare.code).toBe(0);
      expect(jsonLines(bare.stdout).map((o) => o["output"])).toEqual(["Plan updated"]);
      const bareUrls = loaded(bare.stderr);
      expect(bareUrls.some((u) => u.includes("/src/cli/exec.ts"))).toBe(true);
      expect(bareUrls.filter((u) => u.includes("@modelcontextprotocol"))).toEqual([]);
      expect(bareUrls.filter((u) => /\/src\/(mcp|server)\/|serveMcp|smol-toml/.test(u))).toEqual([]);

      await writeFile(
        path.join(dir, "toolcall.toml"),
        `[mcp_servers.demo]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify([
          "--import",
          TSX,
          path.join(ROOT, "src/cli/demo/server.ts"),
        ])}\n`,
      );
      const withMcp = await run(
        ["--import", TSX, "--import", LOAD_HOOK, MAIN, "exec"],
        dir,
        `${fn("c2", "mcp__demo__word_count", { text: "one two" })}\n`,
      );
      expect(withMcp.code).toBe(0);
      expect(String(jsonLines(withMcp.stdout)[0]?.["output"])).toContain("2");
      const mcpUrls = loaded(withMcp.stderr);
      expect(mcpUrls.some((u) => u.includes("@modelcontextprotocol/sdk/dist/esm/client/"))).toBe(true);
      // (The client SDK itself loads a few helpers from sdk/server/, never the server.)
      expect(mcpUrls.filter((u) => /sdk\/dist\/esm\/server\/(index|streamableHttp|stdio)\.js$/.test(u))).toEqual([]);
    });
  });
});

describe("the bundled toolcall (dist/bin)", () => {
  let out: string;
  let bin: string;

  beforeAll(async () => {
    out = await mkdtemp(path.join(os.tmpdir(), "toolcall-bundle-"));
    const built = spawnSync(process.execPath, [path.join(ROOT, "scripts/bundle-cli.mjs"), "--outdir", out], {
      encoding: "utf8",
    });
    expect(built.status, built.stderr).toBe(0);
    bin = path.join(out, "toolcall.js");
  });
  afterAll(async () => {
    await rm(out, { recursive: true, force: true });
  });

  it("validates arguments (ajv bundled) and calls MCP tools of its own bundled demo server", async () => {
    await withTempDir(async (dir) => {
      await writeFile(
        path.join(dir, "toolcall.toml"),
        `[mcp_servers.demo]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify([
          path.join(out, "demo", "server.js"),
        ])}\n`,
      );
      const input = [
        fn("c1", "update_plan", { plan: [{ step: "a", status: "pending" }] }),
        fn("c2", "update_plan", { plan: [{ step: 1 }] }),
        fn("c3", "mcp__demo__word_count", { text: "one two three" }),
        // A 2020-12 schema (the MCP default dialect), checked by the lazily required Ajv2020.
        fn("c4", "mcp__demo__word_count", { text: 3 }),
      ].join("\n");
      const result = await run([bin, "exec", "--log-level", "warn"], dir, `${input}\n`);
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      const outputs = jsonLines(result.stdout).map((o) => String(o["output"]));
      expect(outputs[0]).toBe("Plan updated");
      expect(outputs[1]).toContain("invalid arguments for update_plan: /plan/0 must have required property 'status'");
      expect(outputs[2]).toContain("3");
      expect(outputs[3]).toContain("/text must be string");
    });
  });
});
