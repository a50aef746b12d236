import { describe, expect, it } from "vitest";
import { collect, processesWith, runCli, spawnCli, waitFor, withTempDir } from "./helpers.js";
import { chmod, mkdir, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { findExecutable } from "../../src/process/index.js";
import { bwrapInstalled } from "../../src/cli/sandbox.js";

const BWRAP = await bwrapInstalled();
const UNSANDBOXED = "sandbox: danger-full-access (bubblewrap not found; install it to run the demo sandboxed)";

describe("toolcall tools (child process)", () => {
  it("prints the configured tools in each provider format", async () => {
    await withTempDir(async (dir) => {
      await writeFile(path.join(dir, "toolcall.toml"), '[tools]\nshell = "shell_command"\napply_patch = "freeform"\n');
      const [responses, chat, mcp, anthropic, bad] = await Promise.all([
        runCli(["tools"], { cwd: dir }),
        runCli(["tools", "--format", "chat"], { cwd: dir }),
        runCli(["tools", "--format", "mcp"], { cwd: dir }),
        runCli(["tools", "--format", "anthropic"], { cwd: dir }),
        runCli(["tools", "--format", "gemini"], { cwd: dir }),
      ]);
      for (const r of [responses, chat, mcp, anthropic]) expect(r.code).toBe(0);

      const rTools = JSON.parse(responses.stdout) as Array<Record<string, unknown>>;
      expect(rTools.find((t) => t["name"] === "shell_command")).toMatchObject({ type: "function", strict: false });
      expect(rTools.find((t) => t["name"] === "apply_patch")).toMatchObject({
        type: "custom",
        format: { syntax: "lark" },
      });
      expect(rTools.some((t) => t["name"] === "shell")).toBe(false);

      // Most Chat-compatible servers reject custom tools: apply_patch is a function taking `input`.
      const cTools = JSON.parse(chat.stdout) as Array<Record<string, { name?: string }>>;
      expect(cTools.find((t) => t["function"]?.name === "read_file")).toMatchObject({ type: "function" });
      expect(cTools.find((t) => t["function"]?.name === "apply_patch")).toMatchObject({
        type: "function",
        function: { parameters: { type: "object", required: ["input"] } },
      });
      expect(cTools.every((t) => (t["type"] as unknown) === "function")).toBe(true);

      const aTools = JSON.parse(anthropic.stdout) as Array<Record<string, unknown>>;
      expect(aTools.find((t) => t["name"] === "apply_patch")).toMatchObject({
        input_schema: { type: "object", required: ["input"] },
      });

      const mTools = JSON.parse(mcp.stdout) as Array<Record<string, unknown>>;
      expect(mTools.find((t) => t["name"] === "apply_patch")).toMatchObject({
        inputSchema: { type: "object", required: ["input"] },
      });
      expect(mTools.every((t) => !("type" in t))).toBe(true);

      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--format: expected one of responses, chat, anthropic, mcp, got "gemini"');
    });
  });
});

describe("toolcall demo (child process)", () => {
  it("runs the recorded turn offline, shows per-call status and prints the summary", async () => {
    const result = await runCli(["demo"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const out = result.stdout;
    // Sandboxed wherever bubblewrap is installed (CI installs it); the line after the workspace's.
    const sandboxed = BWRAP || process.env["CI"] === "true";
    expect(out.split("\n")[1]).toBe(sandboxed ? "sandbox: workspace-write (bubblewrap)" : UNSANDBOXED);
    // Not a TTY: plain status lines, each call seen running and done.
    for (const id of [
      "call_read_app",
      "call_read_util",
      "call_grep_todo",
      "call_list",
      "call_ls",
      "call_review",
      "call_words",
      "call_backup",
      "call_patch",
      "call_check",
    ]) {
      expect(out).toMatch(new RegExp(`\\] ${id} .* running `));
      expect(out).toMatch(new RegExp(`\\] ${id} .* done `));
    }
    expect(out).toMatch(/\] call_patch apply_patch\s+exclusive waiting for lock/);
    expect(out).toContain("5:  return 0;"); // the patch was applied before the check ran
    expect(out).toMatch(/calls:\s+11 \(0 failed, 1 denied by policy\)/);
    // The policy: the patch was asked (and auto-allowed), the cleanup denied by rule without running.
    expect(out).toMatch(/approval asked: apply_patch \(.+\)\n {4}apply_patch\n {4}M src\/app\.js\n {2}-> allow/);
    expect(out).toMatch(/call_cleanup shell FAILED\n {4}denied by policy: rule "shell\(rm:\*\)" forbids this call/);
    expect(out).toMatch(/wall time:\s+\d+ ms/);
    expect(out).toMatch(/sum of handler times:\s+\d+ ms/);
    expect(out).toMatch(/parallel speed-up:\s+\d+\.\d\dx/);
    expect(out).toMatch(/exclusive calls alone:\s+yes/);
  });

  it("runs unconfined, and says so, when bubblewrap is not on PATH", async () => {
    await withTempDir(async (dir) => {
      // A PATH with the demo's commands but not bwrap.
      const bin = path.join(dir, "bin");
      await mkdir(bin);
      for (const name of ["bash", "ls", "cp", "sleep", "grep", "rg"]) {
        const found = await findExecutable(name, process.env["PATH"]);
        if (found) await symlink(found, path.join(bin, name));
      }
      const result = await runCli(["demo"], { env: { PATH: bin } });
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      expect(result.stdout.split("\n")[1]).toBe(UNSANDBOXED);
      expect(result.stdout).toMatch(/calls:\s+11 \(0 failed, 1 denied by policy\)/);
    });
  });

  it("on SIGINT aborts the turn, still prints the summary, removes its workspace and exits 130", async () => {
    const child = spawnCli(["demo"]);
    const done = collect(child);
    let seen = "";
    await new Promise<void>((resolve) => {
      child.stdout?.on("data", (c: Buffer) => {
        seen += c.toString();
        if (/\] call_review .* running /.test(seen)) resolve();
      });
    });
    child.kill("SIGINT");
    const result = await done;
    expect(result.code).toBe(130);
    expect(result.stdout).toMatch(/call_review mcp__demo__slow_review FAILED\n {4}aborted by user/);
    expect(result.stdout).toMatch(/calls:\s+11 \(\d+ failed, \d+ denied by policy\)/);
    const ws = /workspace (\S+)/.exec(result.stdout)?.[1] as string;
    await expect(stat(ws)).rejects.toThrow(/ENOENT/);
  });

  it("on SIGINT waits for an aborted command to die before removing its workspace", async () => {
    await withTempDir(async (dir) => {
      // The backup step's `cp` as a build tool that shrugs off SIGINT and SIGTERM and keeps
      // writing into the workspace until the abort's SIGKILL, and notes it if it ever finds the
      // workspace gone. (The real `cp` leaves a window of a few ms, which failed CI once with
      // ENOTEMPTY; unsandboxed, so that the trap keeps it alive for the whole kill grace rather
      // than until bubblewrap's namespace dies.)
      const bin = path.join(dir, "bin");
      const cp = path.join(bin, "cp");
      const started = path.join(dir, "started");
      const outlived = path.join(dir, "outlived");
      await mkdir(bin);
      await writeFile(
        cp,
        [
          "#!/bin/bash",
          "trap '' INT TERM",
          `: > '${started}'`,
          "while :; do",
          `  if [ -e "$PWD/package.json" ]; then : > "\${@: -1}"; else : > '${outlived}'; fi`,
          "done",
          "",
        ].join("\n"),
      );
      await chmod(cp, 0o755);
      const child = spawnCli(["demo", "--sandbox", "danger-full-access"], {
        env: { PATH: `${bin}:${process.env["PATH"] ?? ""}` },
      });
      const done = collect(child);
      await waitFor(
        () =>
          stat(started).then(
            () => true,
            () => false,
          ),
        "the backup step to start",
      );
      child.kill("SIGINT");
      const result = await done;
      expect(result.stderr).toBe("");
      expect(result.code).toBe(130);
      expect(result.stdout).toMatch(/call_backup shell FAILED\n {4}Wall time: .*\n {4}aborted by user/);
      const ws = /workspace (\S+)/.exec(result.stdout)?.[1] as string;
      await expect(stat(ws)).rejects.toThrow(/ENOENT/);
      await expect(stat(outlived)).rejects.toThrow(/ENOENT/);
      expect(await processesWith(cp)).toEqual([]);
    });
  });
});
