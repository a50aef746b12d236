import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PermissionEngine, type PermissionPolicy, type PolicyCall } from "../../src/policy/index.js";
import { texts } from "../../src/protocol/index.js";
import type { ApprovalRequest } from "../../src/index.js";
import { shellToolFactory } from "../../src/handlers/shell/index.js";
import { callTool, fromFactory, tempDir, useTempDir } from "../handlers/toolHarness.js";

/*
 * A shell call that is apply_patch (Codex's interception) is judged as the apply_patch tool:
 * its subject carries the patch's paths and `asTool: "apply_patch"`, so apply_patch's rules
 * decide it, and it is a file edit for accept_edits.
 */
const CWD = "/proj";

/** What the shell tools' policySubject gives for `bash -lc "apply_patch <<'EOF' ..."`. */
const viaShell = (paths: string[], extra: Partial<PolicyCall> = {}): PolicyCall => ({
  toolName: "shell",
  subject: { paths, summary: `apply_patch\n${paths.map((p) => `A ${p}`).join("\n")}`, asTool: "apply_patch" },
  mutating: true,
  fileEdit: true,
  cwd: CWD,
  ...extra,
});

const decide = (policy: PermissionPolicy, call: PolicyCall) => new PermissionEngine(policy).decide(call);

describe("PermissionEngine: a subject's asTool names the rules that judge it", () => {
  it("an apply_patch path rule allows it, only when every path matches", () => {
    expect(decide({ allow: ["apply_patch(src/**)"] }, viaShell(["src/x.ts"]))).toMatchObject({
      decision: "allow",
      by: "rule",
      rule: "apply_patch(src/**)",
    });
    expect(decide({ allow: ["apply_patch(src/**)"] }, viaShell(["src/x.ts", "README.md"]))).toEqual({
      decision: "ask",
      by: "mode",
      reason: "apply_patch may change files or state, which default mode asks about",
    });
  });

  it('deny: ["apply_patch"] denies it, in every mode', () => {
    expect(decide({ mode: "bypass", deny: ["apply_patch"] }, viaShell(["src/x.ts"]))).toEqual({
      decision: "deny",
      by: "rule",
      rule: "apply_patch",
      reason: texts.deniedByRule("apply_patch"),
    });
    expect(decide({ mode: "bypass", deny: ["apply_patch(secrets/**)"] }, viaShell(["secrets/k"]))).toMatchObject({
      decision: "deny",
    });
  });

  it("rules for the shell tool do not allow it (it runs no command), but a deny of the shell still holds", () => {
    expect(decide({ allow: ["shell"] }, viaShell(["src/x.ts"]))).toMatchObject({ decision: "ask", by: "mode" });
    expect(decide({ mode: "bypass", deny: ["shell(rm:*)"] }, viaShell(["src/x.ts"]))).toMatchObject({
      decision: "allow",
    });
    expect(decide({ mode: "bypass", deny: ["shell"] }, viaShell(["src/x.ts"]))).toEqual({
      decision: "deny",
      by: "rule",
      rule: "shell",
      reason: texts.deniedByRule("shell"),
    });
  });

  it("accept_edits allows it inside the writable roots and asks outside them", () => {
    expect(decide({ mode: "accept_edits" }, viaShell(["src/x.ts"]))).toMatchObject({ decision: "allow", by: "mode" });
    expect(decide({ mode: "accept_edits" }, viaShell(["/etc/x"]))).toEqual({
      decision: "ask",
      by: "mode",
      reason: "apply_patch edits files outside the writable roots, which accept_edits mode asks about",
    });
  });

  it("read_only denies it by apply_patch's name", () => {
    expect(decide({ mode: "read_only" }, viaShell(["src/x.ts"]))).toMatchObject({
      decision: "deny",
      reason: texts.deniedReadOnly("apply_patch"),
    });
  });

  it("suggests an apply_patch rule for allow_session, never a shell rule", () => {
    expect(new PermissionEngine().suggestRules(viaShell(["src/a/b.ts"]))).toEqual(["apply_patch(src/a/**)"]);
  });
});

describe("apply_patch through the shell tools, through the policy stage", () => {
  let dir: string;
  useTempDir((d) => (dir = d));
  const shellTools = fromFactory(shellToolFactory, { shell: "shell" });
  const heredoc = (file: string, prefix = ""): string =>
    `${prefix}apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: ${file}\n+hi\n*** End Patch\nEOF`;

  async function shell(script: string, policy: PermissionPolicy, workdir?: string) {
    const permissions = new PermissionEngine({ nonInteractive: true, ...policy });
    const args = { command: ["bash", "-lc", script], ...(workdir !== undefined && { workdir }) };
    return callTool(shellTools, "shell", args, { cwd: dir, permissions });
  }

  it("a rule apply_patch(src/**) allows a heredoc patch touching src/x, and nothing else", async () => {
    await mkdir(path.join(dir, "src"));
    const allowed = await shell(heredoc("src/x.ts"), { allow: ["apply_patch(src/**)"] });
    expect(allowed.text).toMatch(/^Exit code: 0\n/);
    expect(await readFile(path.join(dir, "src/x.ts"), "utf8")).toBe("hi\n");
    const asked = await shell(heredoc("lib/y.ts"), { allow: ["apply_patch(src/**)"] });
    expect(asked.text).toBe(texts.noApprover);
    expect(existsSync(path.join(dir, "lib/y.ts"))).toBe(false);
  });

  it("judges the paths under the call's workdir and cd DIR, against the turn's cwd", async () => {
    await mkdir(path.join(dir, "src/a"), { recursive: true });
    const out = await shell(heredoc("x.ts", "cd a && "), { allow: ["apply_patch(src/a/**)"] }, "src");
    expect(out.text).toMatch(/^Exit code: 0\n/);
    expect(await readFile(path.join(dir, "src/a/x.ts"), "utf8")).toBe("hi\n");
    const escape = await shell(heredoc("../../x.ts", "cd a && "), { allow: ["apply_patch(src/**)"] }, "src");
    expect(escape.text).toBe(texts.noApprover);
    expect(existsSync(path.join(dir, "x.ts"))).toBe(false);
  });

  it('deny: ["apply_patch"] denies it even in bypass mode', async () => {
    const out = await shell(heredoc("x.ts"), { mode: "bypass", deny: ["apply_patch"] });
    expect(out).toMatchObject({ success: false, text: texts.deniedByRule("apply_patch") });
    expect(existsSync(path.join(dir, "x.ts"))).toBe(false);
  });

  it("accept_edits allows it inside the cwd (a file edit) and asks outside", async () => {
    const inside = await shell(heredoc("in.txt"), { mode: "accept_edits" });
    expect(inside.text).toMatch(/^Exit code: 0\n/);
    expect(await readFile(path.join(dir, "in.txt"), "utf8")).toBe("hi\n");
    const other = await tempDir();
    try {
      const target = path.join(other.dir, "out.txt");
      const outside = await shell(heredoc(target), { mode: "accept_edits" });
      expect(outside.text).toBe(texts.noApprover);
      expect(existsSync(target)).toBe(false);
    } finally {
      await other.cleanup();
    }
  });

  it("asks a person with apply_patch's summary and rule, and allow_session covers the next patch", async () => {
    await mkdir(path.join(dir, "sub"));
    const asked: ApprovalRequest[] = [];
    const permissions = new PermissionEngine({
      approve: async (req) => {
        asked.push(req);
        return { decision: "allow_session" };
      },
    });
    const call = (file: string) =>
      callTool(
        shellTools,
        "shell",
        { command: ["bash", "-lc", heredoc(file, "cd sub && ")] },
        { cwd: dir, permissions },
      );
    expect((await call("one.txt")).text).toMatch(/^Exit code: 0\n/);
    expect((await call("two.txt")).text).toMatch(/^Exit code: 0\n/);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      kind: "tool",
      toolName: "shell",
      summary: "apply_patch\nA sub/one.txt",
      suggestedRules: ["apply_patch(sub/**)"],
      mutating: true,
    });
    expect(permissions.sessionRules()).toEqual(["apply_patch(sub/**)"]);
    expect(await readFile(path.join(dir, "sub/two.txt"), "utf8")).toBe("hi\n");
  });

  it("a plain command is still judged by shell rules", async () => {
    const out = await shell("echo hi > x.txt", { allow: ["apply_patch"] });
    expect(out.text).toBe(texts.noApprover);
  });
});
