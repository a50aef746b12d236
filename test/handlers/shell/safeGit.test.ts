import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  createToolRouter,
  createTurnContext,
  PermissionEngine,
  ToolCallRuntime,
  type ToolRouter,
} from "../../../src/index.js";
import { functionCall } from "../toolHarness.js";

/*
 * Security review S7 (issue 27 item 5): known-safe git commands run without asking, so under
 * danger-full-access a hostile repository's fsmonitor, hooks, external diff, textconv driver
 * and pager must not run. Each of them here touches its own marker outside the repository.
 */
let root: string;
let repo: string;
let markers: string;
let routers: ToolRouter[] = [];

beforeAll(() => {
  vi.stubEnv("SHELL", "/bin/bash");
  root = realpathSync(mkdtempSync(path.join(tmpdir(), "toolcall-s7-")));
  repo = path.join(root, "repo");
  markers = path.join(root, "markers");
  execFileSync("mkdir", ["-p", repo, markers]);
  const script = (name: string, body = ""): string => {
    const file = path.join(root, `${name}.sh`);
    writeFileSync(file, `#!/bin/sh\ntouch ${path.join(markers, name)}\n${body}`);
    chmodSync(file, 0o755);
    return file;
  };
  const git = (...args: string[]): void => {
    execFileSync("git", args, { cwd: repo, stdio: "ignore" });
  };
  git("init", "-q", "-b", "main");
  git("config", "user.email", "t@example.com");
  git("config", "user.name", "t");
  writeFileSync(path.join(repo, "a.txt"), "one\n");
  writeFileSync(path.join(repo, ".gitattributes"), "*.txt diff=evil\n");
  git("add", ".");
  git("commit", "-q", "-m", "one");
  writeFileSync(path.join(repo, "a.txt"), "two\n");
  // Set after the commit so that setting up the repository did not already touch a marker.
  git("config", "core.fsmonitor", script("fsmonitor"));
  git("config", "diff.external", script("external"));
  git("config", "diff.evil.textconv", script("textconv", 'cat "$1"\n'));
  git("config", "core.pager", script("pager", "cat\n"));
  git("config", "log.showSignature", "true");
  git("config", "gpg.program", script("gpg"));
  for (const hook of ["post-index-change", "post-checkout", "reference-transaction"]) {
    const file = path.join(repo, ".git", "hooks", hook);
    writeFileSync(file, `#!/bin/sh\ntouch ${path.join(markers, hook)}\n`);
    chmodSync(file, 0o755);
  }
});
afterAll(async () => {
  await Promise.all(routers.map((r) => r.close()));
  routers = [];
  vi.unstubAllEnvs();
  rmSync(root, { recursive: true, force: true });
});

async function run(shell: "shell" | "unified_exec", name: string, args: unknown): Promise<string> {
  const router = await createToolRouter({ shell });
  routers.push(router);
  // Default mode and nobody to approve: anything not known safe would be refused.
  const permissions = new PermissionEngine({ mode: "default" });
  const runtime = new ToolCallRuntime(router, createTurnContext({ cwd: repo, permissions }));
  runtime.submit(functionCall(name, args));
  const [outcome] = await runtime.drainOutcomes();
  return (outcome!.item as { output: string }).output;
}

describe("known-safe git in a hostile repository under danger-full-access (S7)", () => {
  const cases: [string, "shell" | "unified_exec", string, unknown, RegExp][] = [
    ["git status", "shell", "shell", { command: ["git", "status"] }, /modified: {3}a\.txt/],
    ["git diff", "shell", "shell", { command: ["git", "diff"] }, /-one\n\+two/],
    ["git log -p -1", "shell", "shell", { command: ["git", "log", "-p", "-1"] }, /\+one/],
    ["git show", "shell", "shell", { command: ["git", "show"] }, /\+one/],
    [
      "bash -lc git status && git diff",
      "shell",
      "shell",
      { command: ["bash", "-c", "git status && git diff"] },
      /-one\n\+two/,
    ],
    [
      "exec_command git log -p -1 in a terminal (pager)",
      "unified_exec",
      "exec_command",
      { cmd: "git log -p -1", tty: true, login: false },
      /diff --git a\/a\.txt/,
    ],
    ["exec_command git diff | cat", "unified_exec", "exec_command", { cmd: "git diff | cat", login: false }, /-one/],
  ];
  for (const [label, shell, name, args, shows] of cases) {
    it(`${label}: runs unasked, shows its output, and no repository program ran`, async () => {
      const text = await run(shell, name, args);
      expect(text, text).toMatch(shows);
      expect(text).not.toMatch(/rejected|denied/);
      expect(readdirSync(markers)).toEqual([]);
    }, 60_000);
  }

  it("the hostile configuration is live: git run directly touches the markers", () => {
    execFileSync("git", ["diff"], { cwd: repo, stdio: "ignore" });
    expect(existsSync(path.join(markers, "external"))).toBe(true);
    expect(existsSync(path.join(markers, "fsmonitor"))).toBe(true);
  });
});
