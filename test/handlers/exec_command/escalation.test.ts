/**
 * exec_command's `sandbox_permissions: "require_escalated"` (Codex 0.171): a `sandbox_escalation`
 * approval asked before the command runs, its reason the model's justification and its
 * suggested rule the model's `prefix_rule` once judged. Proved by files on disk, with real
 * bubblewrap.
 */
import { existsSync } from "node:fs";
import { expect, it } from "vitest";
import {
  PermissionEngine,
  type ApprovalDecision,
  type ApprovalRequest,
  type PermissionPolicy,
} from "../../../src/index.js";
import { judgePrefixRule } from "../../../src/handlers/exec_command/escalation.js";
import { askingEngine, describeSandbox, escalationBench } from "../../sandbox/helpers.js";

const bench = escalationBench("escx", { preset: "codex" });

/** One `touch {outside}/fN` exec_command with `extra` arguments, answered by `answer`. */
async function touch(
  extra: Record<string, unknown>,
  policy: PermissionPolicy | undefined,
  answer?: (req: ApprovalRequest) => ApprovalDecision,
) {
  const target = bench.target();
  const engine = policy && askingEngine(policy, answer);
  const permissions = engine?.permissions;
  // No login shell: a profile's noise (or a stuck pyenv lock) is not what these tests read.
  const args = { cmd: `touch ${target}`, login: false, ...extra };
  const { output, events } = await bench.call("exec_command", args, permissions);
  return { output, asked: engine?.asked ?? [], events, target, permissions };
}

const ESCALATED = {
  sandbox_permissions: "require_escalated",
  justification: "Create the marker file outside the workspace?",
  prefix_rule: ["touch"],
};

describeSandbox("exec_command require_escalated", () => {
  it("asks before running, with the justification and the judged prefix rule; an allow runs it outside the sandbox", async () => {
    const out = await touch(ESCALATED, { mode: "bypass" }, () => ({ decision: "allow" }));
    expect(out.asked).toHaveLength(1);
    expect(out.asked[0]).toMatchObject({
      kind: "sandbox_escalation",
      toolName: "exec_command",
      summary: expect.stringContaining("touch "),
      reason: "the model asks to run this command without the sandbox: Create the marker file outside the workspace?",
      suggestedRules: ["exec_command(touch:*)"],
    });
    expect(out.output).toContain("Process exited with code 0");
    expect(existsSync(out.target)).toBe(true);
  });

  it("does not run the command when the person denies, nor when nobody can allow it", async () => {
    const denied = await touch(ESCALATED, { mode: "bypass" }, () => ({ decision: "deny" }));
    expect(denied.asked).toHaveLength(1);
    expect(denied.output).toBe(
      "exec_command was not run: running it without the sandbox (sandbox_permissions: require_escalated) was not approved; run it with use_default to stay inside the sandbox",
    );
    expect(denied.events.some((e) => e.type === "exec_command_begin")).toBe(false);
    expect(existsSync(denied.target)).toBe(false);
    const noEngine = await touch(ESCALATED, undefined);
    expect(noEngine.output).toContain("exec_command was not run");
    expect(existsSync(noEngine.target)).toBe(false);
  });

  it("remembers the suggested rule on allow_session; use_default stays in the sandbox and is not asked first", async () => {
    const session = await touch(ESCALATED, { mode: "bypass" }, () => ({ decision: "allow_session" }));
    expect(existsSync(session.target)).toBe(true);
    expect(session.permissions?.sessionRules()).toEqual(["exec_command(touch:*)"]);
    // Default permissions: the sandbox refuses the write, and only then is the person asked.
    const plain = await touch({ sandbox_permissions: "use_default" }, { mode: "bypass" }, () => ({ decision: "deny" }));
    expect(plain.asked.map((a) => a.reason)).toEqual([
      "command failed in the sandbox; run it again without the sandbox?",
    ]);
    expect(existsSync(plain.target)).toBe(false);
  });

  it("suggests no rule the model's prefix_rule would make broader than the command or that names a banned or denied program", async () => {
    const suggested = async (prefix: string[], cmd = "touch /x") => {
      const out = await touch({ ...ESCALATED, prefix_rule: prefix, cmd }, { mode: "bypass" }, () => ({
        decision: "deny",
      }));
      return out.asked[0]?.suggestedRules;
    };
    expect(await suggested(["bash"], "bash -c 'touch /x'")).toEqual([]);
    expect(await suggested(["rm"])).toEqual([]);
    expect(await suggested(["touch", "/x", "/y"])).toEqual([]);
    expect(await suggested(["touch"], "touch /x && rm -rf /y")).toEqual([]);
    expect(await suggested(["touch"], "touch /x && ls")).toEqual(["exec_command(touch:*)"]);
    expect(await suggested(["touch\nrm"])).toEqual([]);
    expect(await suggested(["*"], "ls")).toEqual([]);
  });
});

it("judges a prefix naming a program a deny rule forbids as not worth suggesting", () => {
  const engine = new PermissionEngine({ deny: ["exec_command(curl:*)"] });
  const args = { cmd: "curl -s example.com", prefix_rule: ["curl"] };
  expect(judgePrefixRule(args, engine, "/")).toBeUndefined();
  expect(judgePrefixRule(args, new PermissionEngine({}), "/")).toBe("exec_command(curl:*)");
  expect(judgePrefixRule({ cmd: "git pull origin", prefix_rule: ["git", "pull"] }, undefined, "/")).toBe(
    "exec_command(git pull:*)",
  );
  expect(judgePrefixRule({ cmd: "git pull", prefix_rule: ["git"] }, undefined, "/")).toBeUndefined();
  expect(judgePrefixRule({ cmd: "echo $HOME", prefix_rule: ["echo", "x"] }, undefined, "/")).toBeUndefined();
});
