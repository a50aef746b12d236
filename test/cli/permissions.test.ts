import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { jsonLines, runCli, withTempDir } from "./helpers.js";

const shell = (callId: string, command: string[]) =>
  JSON.stringify({ type: "function_call", call_id: callId, name: "shell", arguments: JSON.stringify({ command }) });

describe("toolcall exec with a policy", () => {
  it("--permissions read_only denies a mutating call and runs a read; nobody is asked", async () => {
    await withTempDir(async (dir) => {
      const input = [shell("touch", ["touch", "made.txt"]), shell("ls", ["ls"])].join("\n");
      const result = await runCli(["exec", "--permissions", "read_only"], { cwd: dir, input: `${input}\n` });
      expect(result.code).toBe(0);
      const outputs = jsonLines(result.stdout);
      expect(outputs[0]).toEqual({
        type: "function_call_output",
        call_id: "touch",
        output: "denied by policy: shell may change files or state, which read-only mode forbids",
      });
      expect(String(outputs[1]?.["output"])).toMatch(/^Exit code: 0/);
      expect(existsSync(path.join(dir, "made.txt"))).toBe(false);
    });
  });

  it("[permissions] in toolcall.toml: rules decide, an ask follows the no-approver rule", async () => {
    await withTempDir(async (dir) => {
      await writeFile(
        path.join(dir, "toolcall.toml"),
        '[permissions]\nmode = "default"\nallow = ["shell(touch ok.txt)"]\ndeny = ["shell(rm:*)"]\n',
      );
      const input = [
        shell("ok", ["touch", "ok.txt"]),
        shell("rm", ["rm", "-rf", "ok.txt"]),
        shell("asked", ["touch", "other.txt"]),
      ].join("\n");
      const result = await runCli(["exec"], { cwd: dir, input: `${input}\n` });
      expect(result.code).toBe(0);
      const outputs = jsonLines(result.stdout).map((o) => String(o["output"]).split("\n")[0]);
      expect(outputs).toEqual([
        "Exit code: 0",
        'denied by policy: rule "shell(rm:*)" forbids this call',
        "rejected: this call needs approval and no approver is configured",
      ]);
      expect(existsSync(path.join(dir, "ok.txt"))).toBe(true);
      expect(existsSync(path.join(dir, "other.txt"))).toBe(false);
    });
  });

  it("a bad mode or a malformed rule exits 2 naming it", async () => {
    await withTempDir(async (dir) => {
      const bad = await runCli(["exec", "--permissions", "yolo"], { cwd: dir, input: "" });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--permissions: expected one of default, accept_edits, read_only, bypass, got "yolo"/);
      await writeFile(path.join(dir, "toolcall.toml"), '[permissions]\nallow = ["shell(git status"]\n');
      const rule = await runCli(["exec"], { cwd: dir, input: "" });
      expect(rule.code).toBe(2);
      expect(rule.stderr).toMatch(/invalid permission rule "shell\(git status"/);
    });
  });
});
