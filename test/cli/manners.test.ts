import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  collect,
  jsonLines,
  ROOT,
  runCli,
  spawnCli,
  uniqueMarker,
  waitFor,
  processesWith,
  withTempDir,
} from "./helpers.js";

const version = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const fn = (callId: string, name: string, args: unknown): string =>
  JSON.stringify({ type: "function_call", call_id: callId, name, arguments: JSON.stringify(args) });

describe("the command's manners (DESIGN section 13)", () => {
  it("--version, -V and version print the package's version; serve needs --stdio", async () => {
    const [serve, ...runs] = await Promise.all([
      runCli(["serve"]),
      ...["--version", "-V", "version"].map((flag) => runCli([flag])),
    ]);
    for (const { code, stdout } of runs) {
      expect(code).toBe(0);
      expect(stdout).toBe(`toolcall ${version}\n`);
    }
    // The sidecar has one transport, and says so.
    expect(serve.code).toBe(2);
    expect(serve.stderr).toBe("toolcall serve: --stdio is required (the sidecar's only transport)\n");
  });

  // Four CLI processes at once: slow on a loaded machine.
  it("help COMMAND and COMMAND --help print that command's own help", async () => {
    // Started together: each is a separate process.
    const [exec, execHelp, serveMcp, unknown] = await Promise.all([
      runCli(["help", "exec"]),
      runCli(["exec", "--help"]),
      runCli(["serve-mcp", "-h"]),
      runCli(["help", "nope"]),
    ]);
    expect(exec.code).toBe(0);
    expect(exec.stdout).toMatch(/^usage: toolcall exec \[FILE\]/);
    expect(exec.stdout).toContain("--events FILE");
    expect(exec.stdout).not.toContain("--http PORT");
    expect(execHelp.stdout).toBe(exec.stdout);

    expect(serveMcp.stdout).toMatch(/^usage: toolcall serve-mcp/);
    for (const flag of ["--http PORT", "--plugin FILE", "--token TOKEN", "--max-sessions N", "--session-idle-ms"])
      expect(serveMcp.stdout).toContain(flag);

    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      "toolcall help: unknown command: nope (commands: exec, serve, serve-mcp, tools, mcp, demo)\n",
    );
  });

  it("exec ignores a UTF-8 BOM before the first item", async () => {
    await withTempDir(async (dir) => {
      const input = `\uFEFF${fn("c1", "list_dir", { dir_path: dir })}\n${fn("c2", "list_dir", { dir_path: dir })}\n`;
      const result = await runCli(["exec"], { cwd: dir, input });
      expect(result.stderr).toBe("");
      expect(jsonLines(result.stdout).map((o) => o["call_id"])).toEqual(["c1", "c2"]);
    });
  });

  it("exec on SIGTERM writes every output, leaves no process and exits 143", async () => {
    await withTempDir(async (dir) => {
      const marker = uniqueMarker();
      const child = spawnCli(["exec", "--sandbox", "danger-full-access"], { cwd: dir });
      const done = collect(child);
      child.stdin?.write(`${fn("t1", "shell", { command: ["sleep", marker] })}\n`);
      await waitFor(async () => (await processesWith(marker)).length > 0, "the sleep to start");
      child.kill("SIGTERM");
      const result = await done;
      expect(result.code).toBe(143);
      expect(jsonLines(result.stdout).map((o) => o["call_id"])).toEqual(["t1"]);
      expect(result.stderr).toContain("SIGTERM: aborting the turn");
      expect(await processesWith(marker)).toEqual([]);
    });
  });
});
