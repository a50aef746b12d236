import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claudeProject } from "../support/claudeProject.js";
import { collect, jsonLines, ROOT, type CliResult } from "./helpers.js";

// The built CLI (`npm run build` first; CI builds before testing).
const BIN = path.join(ROOT, "dist", "bin", "toolcall.js");
const DEMO_SERVER = path.join(ROOT, "dist", "bin", "demo", "server.js");

function runBuilt(args: string[], cwd: string, input: string, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const done = collect(child);
  child.stdin.end(input);
  return done;
}

const fn = (id: string, name: string, args: unknown): string =>
  JSON.stringify({ type: "function_call", call_id: id, name, arguments: JSON.stringify(args) });

let root: string;
beforeAll(async () => {
  expect(existsSync(BIN), "run `npm run build` first: these tests run the built CLI").toBe(true);
  root = await mkdtemp(path.join(os.tmpdir(), "settings-cli-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("a Claude Code .claude/settings.json in the built CLI", () => {
  let project: string;
  let home: string;
  beforeAll(async () => {
    project = await claudeProject(root);
    home = path.join(root, "home"); // no ~/.claude here: only the project's settings
    await mkdir(home);
  });

  const calls = (p: string) =>
    [
      fn("c1", "shell", { command: ["rm", "-f", "victim.txt"] }),
      fn("c2", "read_file", { file_path: path.join(p, ".env") }),
      fn("c3", "shell", { command: ["touch", "allowed-by-hook.txt"] }),
      fn("c4", "shell", { command: ["touch", "denied-by-hook.txt"] }),
      fn("c5", "read_file", { file_path: path.join(p, "missing.txt") }),
    ].join("\n") + "\n";

  for (const [how, flags] of [
    ["--claude-settings", ["--claude-settings"]],
    ["--settings FILE", ["--settings", ".claude/settings.json"]],
    ["--config .claude/settings.json", ["--config", ".claude/settings.json"]],
  ] as const) {
    it(`loads with ${how} and its rules and hooks act`, async () => {
      await rm(path.join(project, "hook-log.txt"), { force: true });
      await rm(path.join(project, "allowed-by-hook.txt"), { force: true });
      const result = await runBuilt(["exec", ...flags], project, calls(project), { HOME: home });
      expect(result.code, result.stderr).toBe(0);
      const out = Object.fromEntries(jsonLines(result.stdout).map((o) => [o["call_id"], String(o["output"])]));
      expect(out["c1"]).toBe('denied by policy: rule "shell(rm:*)" forbids this call');
      expect(await readFile(path.join(project, "victim.txt"), "utf8")).toBe("keep me\n");
      expect(out["c2"]).toBe('denied by policy: rule "Read(./.env)" forbids this call');
      expect(out["c3"]).toMatch(/Exit code: 0/);
      expect(existsSync(path.join(project, "allowed-by-hook.txt"))).toBe(true);
      expect(out["c4"]).toBe("denied by PermissionRequest hook: the team keeps denied-* files out");
      expect(existsSync(path.join(project, "denied-by-hook.txt"))).toBe(false);
      expect(out["c5"]).toContain("hint: check the path");
      const log = await readFile(path.join(project, "hook-log.txt"), "utf8");
      expect(log).toMatch(/^PreToolUse shell acceptEdits session=[0-9a-f-]{36} transcript=None$/m);
      expect(log).toContain("PermissionRequest shell acceptEdits touch allowed-by-hook.txt");
      expect(log).toMatch(/^PostToolUseFailure read_file error=\S/m);
      // What loads but cannot apply is said on stderr, naming file and key.
      const file = path.join(project, ".claude", "settings.json");
      expect(result.stderr).toContain(
        `toolcall: warning: ${file}: permissions.deny: rule "WebFetch" names Claude Code's WebFetch, which no tool here is; it decides nothing`,
      );
      expect(result.stderr).toContain(`toolcall: warning: ${file}: hooks.Stop never runs here`);
      expect(result.stderr).toContain(`toolcall: warning: ${file}: hooks.SessionStart never runs here`);
      expect(result.stderr).toContain(
        'toolcall: warning: permissions.allow: rule "mcp__github__get_issue" matches no tool',
      );
    });
  }

  it("scopes merge: settings.local.json over settings.json (plan: read-only), deny from any scope holds", async () => {
    const local = path.join(project, ".claude", "settings.local.json");
    await writeFile(local, JSON.stringify({ permissions: { defaultMode: "plan", allow: ["Bash(rm:*)"] } }));
    try {
      const input = `${fn("c1", "shell", { command: ["rm", "-f", "victim.txt"] })}\n${fn("c2", "shell", { command: ["touch", "x.txt"] })}\n`;
      const result = await runBuilt(["exec", "--claude-settings"], project, input, { HOME: home });
      const out = jsonLines(result.stdout).map((o) => String(o["output"]));
      expect(out).toEqual([
        'denied by policy: rule "shell(rm:*)" forbids this call',
        "denied by policy: shell may change files or state, which read-only mode forbids",
      ]);
      expect(existsSync(path.join(project, "x.txt"))).toBe(false);
    } finally {
      await rm(local);
    }
  });

  it("a malformed rule is an error naming it (exit 2), before anything runs", async () => {
    const bad = path.join(root, "bad-settings.json");
    await writeFile(bad, JSON.stringify({ permissions: { deny: ["Bash(rm:*", "Read(./.env)"] } }));
    const result = await runBuilt(["exec", "--settings", bad], project, fn("c1", "shell", { command: ["true"] }));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${bad}: permissions.deny: invalid permission rule "Bash(rm:*"`);
    expect(result.stdout).toBe("");
  });
});

describe("a Codex config.toml with approval keys in the built CLI", () => {
  it("approval_policy and per-tool approval_mode act: a tool set to prompt is asked; a typo'd key warns naming key and file", async () => {
    const dir = path.join(root, "codex");
    await mkdir(dir);
    const config = path.join(dir, "config.toml");
    await writeFile(
      config,
      [
        `model = "gpt-5.1-codex-max"`,
        `approval_policy = "never"`,
        `[mcp_servers.demo]`,
        `command = ${JSON.stringify(process.execPath)}`,
        `args = [${JSON.stringify(DEMO_SERVER)}]`,
        `default_tools_approval_mode = "auto"`,
        `[mcp_servers.demo.tools.word_count]`,
        `approval_mode = "prompt"`,
        `[mcp_servers.demo.tools.slow_review]`,
        `aproval_mode = "prompt"`,
      ].join("\n"),
    );
    const input = [
      fn("c1", "mcp__demo__word_count", { text: "one two three" }),
      fn("c2", "shell", { command: ["touch", "made.txt"] }),
    ].join("\n");
    const result = await runBuilt(["exec", "--config", config], dir, `${input}\n`);
    expect(result.code, result.stderr).toBe(0);
    const out = jsonLines(result.stdout).map((o) => String(o["output"]));
    // "prompt": asked, and nobody answers approvals in `exec`.
    expect(out[0]).toBe("rejected: this call needs approval and no approver is configured");
    // approval_policy "never": bypass, so the shell call runs unasked (inside the sandbox).
    expect(out[1]).toMatch(/Exit code: 0/);
    expect(existsSync(path.join(dir, "made.txt"))).toBe(true);
    expect(result.stderr).toContain(
      `toolcall: warning: ${config}: unknown key mcp_servers.demo.tools.slow_review.aproval_mode; ignored`,
    );
  });

  it("without the approval keys the same tool runs unasked (the test above is not vacuous)", async () => {
    const dir = path.join(root, "codex-plain");
    await mkdir(dir);
    const config = path.join(dir, "config.toml");
    await writeFile(
      config,
      [
        `[mcp_servers.demo]`,
        `command = ${JSON.stringify(process.execPath)}`,
        `args = [${JSON.stringify(DEMO_SERVER)}]`,
      ].join("\n"),
    );
    const result = await runBuilt(
      ["exec", "--config", config],
      dir,
      `${fn("c1", "mcp__demo__word_count", { text: "one two three" })}\n`,
    );
    expect(String(jsonLines(result.stdout)[0]?.["output"])).toContain("3");
  });
});
