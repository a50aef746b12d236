import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ClaudeSettingsError,
  loadClaudeSettings,
  policyToolWarnings,
  type ClaudeSettings,
} from "../../src/subpaths/policy.js";
import {
  createToolRouter,
  createTurnContext,
  embedderHooks,
  PermissionEngine,
  ToolCallRuntime,
  type ToolRouter,
} from "../../src/index.js";
import { claudeProject } from "../support/claudeProject.js";
import { fc, text } from "../support/harness.js";

let root: string;
let project: string;
let router: ToolRouter;
let settings: ClaudeSettings;
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "claude-settings-"));
  project = await claudeProject(root);
  router = await createToolRouter({ shell: "shell", readFile: true, editFile: true, writeFile: true });
  settings = await loadClaudeSettings({ dir: project, user: false });
});
afterAll(async () => {
  await router.close();
  await rm(root, { recursive: true, force: true });
});

describe("a whole .claude/settings.json through the library", () => {
  it("loads: rules in our syntax, the mode, additional directories, every hook event, one warning per thing that cannot apply", () => {
    expect(settings.files).toEqual([path.join(project, ".claude", "settings.json")]);
    expect(settings.permissions).toEqual({
      mode: "accept_edits",
      allow: [
        "shell(npm run test:*)",
        "shell(git status)",
        "shell(git diff:*)",
        "Read(src/**)",
        "Edit(src/**)",
        "mcp__github__get_issue",
      ],
      ask: ["shell(git push:*)", "mcp__github__*"],
      deny: ["shell(rm:*)", "shell(curl:*)", "Read(./.env)", "Read(./.env.*)", "Read(/etc/shadow)"],
    });
    expect(settings.writableRoots).toEqual([path.join(root, "shared-docs")]);
    expect(Object.keys(settings.hooks).sort()).toEqual([
      "PermissionRequest",
      "PostToolUse",
      "PostToolUseFailure",
      "PreToolUse",
      "SessionStart",
      "Stop",
    ]);
    const file = path.join(project, ".claude", "settings.json");
    expect(settings.warnings).toEqual([
      `${file}: permissions.deny: rule "WebFetch" names Claude Code's WebFetch, which no tool here is; it decides nothing`,
      `${file}: hooks.Stop never runs here (a tool runtime has no Stop moment); kept for the embedder (embedderHooks)`,
      `${file}: hooks.SessionStart never runs here (a tool runtime has no SessionStart moment); kept for the embedder (embedderHooks)`,
    ]);
    expect(settings.ignoredKeys).toEqual([
      `${file}: $schema`,
      `${file}: model`,
      `${file}: includeCoAuthoredBy`,
      `${file}: env`,
    ]);
    expect(embedderHooks(settings.hooks, "Stop")).toEqual([
      { hooks: [{ type: "command", command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/audit.py' }] },
    ]);
    expect(embedderHooks(settings.hooks, "Notification")).toEqual([]);
  });

  it("names the rules and matchers that match no offered tool", () => {
    const offered = router.toolNames();
    const warnings = policyToolWarnings(settings.permissions, settings.hooks, offered);
    expect(warnings.map((w) => w.split(" (offered")[0])).toEqual([
      'permissions.ask: rule "mcp__github__*" matches no tool offered here',
      'permissions.allow: rule "mcp__github__get_issue" matches no tool offered here',
    ]);
    // `Bash` and `Edit|Write` match our shell and file tools, so no hook warns.
    expect(policyToolWarnings(undefined, { PreToolUse: [{ matcher: "Bassh", hooks: [] }] }, offered)).toEqual([
      `hooks.PreToolUse[0]: matcher "Bassh" matches no tool offered here (offered: ${offered.join(", ")})`,
    ]);
  });

  describe("its rules and hooks act", () => {
    let runtime: ToolCallRuntime;
    const log = () => readFile(path.join(project, "hook-log.txt"), "utf8").catch(() => "");
    beforeAll(() => {
      const engine = new PermissionEngine({ ...settings.permissions, nonInteractive: true });
      const turn = createTurnContext({ cwd: project, permissions: engine, hooks: settings.hooks });
      runtime = new ToolCallRuntime(router, turn);
    });
    const run = async (name: string, args: unknown): Promise<string> => {
      runtime.submit(fc(`c-${Math.random()}`, name, JSON.stringify(args)));
      return (await runtime.drain()).map(text)[0] ?? "";
    };

    it("Bash(rm:*) denies rm, and the PreToolUse hook matched by `Bash` saw the call with the session fields", async () => {
      expect(await run("shell", { command: ["rm", "-f", "victim.txt"] })).toBe(
        'denied by policy: rule "shell(rm:*)" forbids this call',
      );
      expect(existsSync(path.join(project, "victim.txt"))).toBe(true);
      expect(await log()).toContain(`PreToolUse shell acceptEdits session=${router.sessionId} transcript=None`);
    });

    it("Read(./.env) denies reading .env", async () => {
      expect(await run("read_file", { file_path: path.join(project, ".env") })).toBe(
        'denied by policy: rule "Read(./.env)" forbids this call',
      );
    });

    it("the PermissionRequest hook answers what the mode asks: allow runs, deny answers its message", async () => {
      expect(await run("shell", { command: ["touch", "allowed-by-hook.txt"] })).toMatch(/Exit code: 0/);
      expect(existsSync(path.join(project, "allowed-by-hook.txt"))).toBe(true);
      expect(await run("shell", { command: ["touch", "denied-by-hook.txt"] })).toBe(
        "denied by PermissionRequest hook: the team keeps denied-* files out",
      );
      expect(existsSync(path.join(project, "denied-by-hook.txt"))).toBe(false);
      // No opinion: the approver decides (here nobody, so the no-approver rule).
      expect(await run("shell", { command: ["touch", "other.txt"] })).toBe(
        "rejected: this call needs approval and no approver is configured",
      );
      expect(await log()).toContain("PermissionRequest shell acceptEdits touch allowed-by-hook.txt");
    });

    it("PostToolUseFailure runs after a failed call and its context reaches the model", async () => {
      const out = await run("read_file", { file_path: path.join(project, "missing.txt") });
      expect(out).toContain("hint: check the path");
      expect(await log()).toMatch(/PostToolUseFailure read_file error=\S/);
    });
  });
});

describe("settings scopes and mistakes", () => {
  const write = async (name: string, doc: unknown): Promise<string> => {
    const file = path.join(root, name);
    await writeFile(file, JSON.stringify(doc));
    return file;
  };

  it("merges user < project < local: rules add up (deny wins wherever it came from), the highest mode counts", async () => {
    const user = await write("user.json", {
      permissions: { deny: ["Bash(curl:*)"], defaultMode: "bypassPermissions" },
    });
    const proj = await write("proj.json", { permissions: { allow: ["Bash(curl:*)"], defaultMode: "acceptEdits" } });
    const local = await write("local.json", { permissions: { defaultMode: "plan" } });
    const merged = await loadClaudeSettings({ files: [user, proj, local] });
    expect(merged.permissions).toEqual({
      mode: "read_only",
      allow: ["shell(curl:*)"],
      ask: [],
      deny: ["shell(curl:*)"],
    });
    const verdict = new PermissionEngine(merged.permissions).decide({
      toolName: "shell",
      subject: { commands: [["curl", "x"]] },
      mutating: true,
      cwd: root,
    });
    expect(verdict).toMatchObject({ decision: "deny", rule: "shell(curl:*)" });
  });

  it("an unknown key warns naming it and the file; a malformed rule or mode is an error naming it", async () => {
    const typo = await write("typo.json", { permisions: { deny: ["Bash(rm:*)"] }, permissions: { alow: [] } });
    expect((await loadClaudeSettings({ files: [typo] })).warnings).toEqual([
      `${typo}: unknown key permisions; ignored`,
      `${typo}: unknown key permissions.alow; ignored`,
    ]);
    const rule = await write("rule.json", { permissions: { deny: ["Bash(git * main)"] } });
    await expect(loadClaudeSettings({ files: [rule] })).rejects.toThrow(
      new ClaudeSettingsError(
        `${rule}: permissions.deny: invalid permission rule "Bash(git * main)": only a trailing wildcard (\`cmd:*\` or \`cmd *\`) can be matched here, not one inside the command`,
      ),
    );
    const mode = await write("mode.json", { permissions: { defaultMode: "yolo" } });
    await expect(loadClaudeSettings({ files: [mode] })).rejects.toThrow(
      `${mode}: permissions.defaultMode: expected one of default, acceptEdits, plan, bypassPermissions, dontAsk, got "yolo"`,
    );
  });

  it("hooks Claude Code has and we cannot run load with a warning: a prompt hook, an unknown hook key", async () => {
    const file = await write("hooks.json", {
      hooks: {
        Stop: [{ hooks: [{ type: "prompt", prompt: "Is the task done?" }] }],
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "true", statusMessage: "checking" }] }],
      },
    });
    const loaded = await loadClaudeSettings({ files: [file] });
    expect(loaded.warnings).toEqual([
      `${file}: hooks.Stop[0].hooks[0]: unknown key prompt; ignored`,
      `${file}: hooks.Stop[0].hooks[0]: a hook of type "prompt" is not run here (only "command" hooks run); dropped`,
      `${file}: hooks.PreToolUse[0].hooks[0]: unknown key statusMessage; ignored`,
      `${file}: hooks.Stop never runs here (a tool runtime has no Stop moment); kept for the embedder (embedderHooks)`,
    ]);
    expect(loaded.hooks).toEqual({
      Stop: [{ hooks: [] }],
      PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "true" }] }],
    });
  });

  it("PermissionRequest: a deny wins over an allow, interrupt aborts the turn, an input rewrite is no answer", async () => {
    const hook = async (name: string, out: unknown): Promise<string> => {
      const file = path.join(root, name);
      await writeFile(file, `#!/bin/sh\ncat >/dev/null\necho '${JSON.stringify(out)}'\n`);
      await chmod(file, 0o755);
      return file;
    };
    const answer = (decision: unknown) => ({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision } });
    const allow = await hook("pr-allow.sh", answer({ behavior: "allow" }));
    const deny = await hook("pr-deny.sh", answer({ behavior: "deny", message: "no" }));
    const stop = await hook("pr-stop.sh", answer({ behavior: "deny", message: "stop now", interrupt: true }));
    const rewrite = await hook("pr-rewrite.sh", answer({ behavior: "allow", updatedInput: { command: ["true"] } }));
    const decided: string[] = [];
    const runWith = async (...commands: string[]) => {
      const turn = createTurnContext({
        cwd: root,
        onEvent: (e) => {
          if (e.type === "approval_decided") decided.push(`${e.decision}:${e.by}`);
        },
        permissions: new PermissionEngine({ nonInteractive: true }),
        hooks: { PermissionRequest: [{ hooks: commands.map((command) => ({ type: "command" as const, command })) }] },
      });
      const runtime = new ToolCallRuntime(router, turn);
      runtime.submit(fc("c1", "shell", JSON.stringify({ command: ["touch", "pr.txt"] })));
      return (await runtime.drain()).map(text)[0];
    };
    expect(await runWith(allow, deny)).toBe("denied by PermissionRequest hook: no");
    expect(await runWith(stop)).toBe("denied by PermissionRequest hook: stop now");
    expect(decided).toEqual(["deny:hook", "abort:hook"]);
    expect(await runWith(rewrite)).toBe("rejected: this call needs approval and no approver is configured");
    expect(existsSync(path.join(root, "pr.txt"))).toBe(false);
    expect(await runWith(allow)).toMatch(/Exit code: 0/);
    expect(existsSync(path.join(root, "pr.txt"))).toBe(true);
  });

  it("Claude Code's path forms: /x from the project, //x absolute", async () => {
    await mkdir(path.join(root, "p2", ".claude"), { recursive: true });
    const file = path.join(root, "p2", ".claude", "settings.json");
    await writeFile(file, JSON.stringify({ permissions: { deny: ["Edit(/docs/**)", "Read(//var/log/**)"] } }));
    expect((await loadClaudeSettings({ files: [file] })).permissions.deny).toEqual([
      `Edit(${path.join(root, "p2", "docs/**")})`,
      "Read(/var/log/**)",
    ]);
  });
});
