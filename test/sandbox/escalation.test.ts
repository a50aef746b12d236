/**
 * Sandbox escalation through the runtime (DESIGN section 12): a command that fails in the
 * sandbox with a denial signature is offered to a person (`sandbox_escalation`); on allow it
 * runs again unsandboxed, otherwise the sandboxed output stands. Proved by the file on disk.
 */
import { existsSync } from "node:fs";
import { expect, it } from "vitest";
import type {
  ApprovalDecision,
  ApprovalRequest,
  PermissionEngine,
  PermissionPolicy,
  ToolEvent,
} from "../../src/index.js";
import { askingEngine as engine, describeSandbox, escalationBench } from "./helpers.js";

const REASON = "command failed in the sandbox; run it again without the sandbox?";
const bench = escalationBench("esc", { shell: "shell" });

interface Outcome {
  output: string;
  asked: ApprovalRequest[];
  events: ToolEvent[];
  target: string;
}

/** One `touch {outside}/...` call (or `argv(target)`) through the runtime. */
async function touchOutside(
  permissions: PermissionEngine | undefined,
  argv?: (target: string) => string[],
): Promise<Omit<Outcome, "asked">> {
  const target = bench.target(".txt");
  const out = await bench.call("shell", { command: argv ? argv(target) : ["touch", target] }, permissions);
  return { ...out, target };
}

/** `touchOutside` with a fresh engine on `policy` answered by `answer`. */
async function asking(policy: PermissionPolicy, answer: (req: ApprovalRequest) => ApprovalDecision): Promise<Outcome> {
  const { permissions, asked } = engine(policy, answer);
  return { ...(await touchOutside(permissions)), asked };
}

const runs = (events: ToolEvent[]): number => events.filter((e) => e.type === "exec_command_begin").length;
const allowShell: PermissionPolicy = { mode: "default", allow: ["shell"] };

describeSandbox("sandbox escalation through the runtime", () => {
  it("on allow, the command runs again without the sandbox", async () => {
    const { output, asked, events, target } = await asking(allowShell, () => ({ decision: "allow" }));
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      kind: "sandbox_escalation",
      toolName: "shell",
      reason: REASON,
      summary: `touch ${target}`,
      mutating: true,
      suggestedRules: [],
    });
    expect(output).toMatch(/^Exit code: 0\n/);
    expect(output).not.toContain("Read-only file system");
    expect(existsSync(target)).toBe(true);
    expect(runs(events)).toBe(2);
    expect(events.filter((e) => e.type === "approval_decided")).toMatchObject([{ decision: "allow", by: "user" }]);
  });

  it("on deny, the sandboxed failure stands", async () => {
    const { output, asked, events, target } = await asking(allowShell, () => ({ decision: "deny" }));
    expect(asked.map((r) => r.kind)).toEqual(["sandbox_escalation"]);
    expect(output).toMatch(/^Exit code: 1\n/);
    expect(output).toContain("Read-only file system");
    expect(existsSync(target)).toBe(false);
    expect(runs(events)).toBe(1);
  });

  it("bypass mode runs the call unasked but still asks for the escalation", async () => {
    for (const decision of ["allow", "deny"] as const) {
      const { output, asked, target } = await asking({ mode: "bypass" }, () => ({ decision }));
      expect(asked.map((r) => [r.kind, r.reason])).toEqual([["sandbox_escalation", REASON]]);
      expect(existsSync(target)).toBe(decision === "allow");
      expect(output).toMatch(decision === "allow" ? /^Exit code: 0\n/ : /Read-only file system/);
    }
  });

  it("without a PermissionEngine nobody is asked and the sandboxed output stands", async () => {
    const { output, events, target } = await touchOutside(undefined);
    expect(events.some((e) => e.type === "approval_request" || e.type === "approval_decided")).toBe(false);
    expect(output).toMatch(/^Exit code: 1\n/);
    expect(output).toContain("Read-only file system");
    expect(existsSync(target)).toBe(false);
    expect(runs(events)).toBe(1);
  });

  it("with an engine but nobody to answer (nonInteractive), the escalation is not granted", async () => {
    const { output, events, target } = await touchOutside(engine({ ...allowShell, nonInteractive: true }).permissions);
    expect(events.filter((e) => e.type === "approval_decided")).toMatchObject([
      { decision: "deny", by: "no_approver" },
    ]);
    expect(output).toContain("Read-only file system");
    expect(existsSync(target)).toBe(false);
  });

  it("allow_session grants this call only: the next escalation is asked again", async () => {
    let answer: ApprovalDecision["decision"] = "allow_session";
    const { permissions, asked } = engine(allowShell, () => ({ decision: answer }));
    const first = await touchOutside(permissions);
    answer = "deny";
    const second = await touchOutside(permissions);
    expect(existsSync(first.target)).toBe(true);
    expect(asked.map((r) => r.kind)).toEqual(["sandbox_escalation", "sandbox_escalation"]);
    expect(permissions.sessionRules()).toEqual([]);
    expect(existsSync(second.target)).toBe(false);
  });

  it("a failure without a denial signature is not offered", async () => {
    const { permissions, asked } = engine(allowShell, () => ({ decision: "allow" }));
    const { output, events } = await touchOutside(permissions, () => ["bash", "-c", "echo plain failure; exit 3"]);
    expect(asked).toEqual([]);
    expect(output).toMatch(/^Exit code: 3\n/);
    expect(runs(events)).toBe(1);
  });
});
