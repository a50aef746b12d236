import { describe, expect, it } from "vitest";
import { PermissionEngine, type PermissionPolicy, type PolicyCall } from "../../src/policy/index.js";
import { texts } from "../../src/protocol/index.js";

const CWD = "/proj";

/** `rm -rf build`: a mutating shell call every row of the decision order can see. */
const rm: PolicyCall = { toolName: "shell", subject: { commands: [["rm", "-rf", "build"]] }, mutating: true, cwd: CWD };
const readCall: PolicyCall = { toolName: "read_file", subject: { paths: ["src/a.ts"] }, mutating: false, cwd: CWD };

const edit = (paths: string[], extra: Partial<PolicyCall> = {}): PolicyCall => ({
  toolName: "apply_patch",
  subject: { paths },
  mutating: true,
  fileEdit: true,
  cwd: CWD,
  ...extra,
});

const engine = (policy: PermissionPolicy = {}): PermissionEngine => new PermissionEngine(policy);

describe("PermissionEngine.decide: the decision order, first that applies", () => {
  // Every later row is configured to decide otherwise, so only the row under test can explain the verdict.
  const everything: PermissionPolicy = {
    mode: "bypass",
    allow: ["shell(rm:*)"],
    ask: ["shell(rm -rf:*)"],
    deny: ["shell(rm -rf build)"],
  };

  it("1. a PreToolUse hook's deny beats a deny rule, an ask, an allow and the mode", () => {
    expect(engine(everything).decide(rm, { decision: "deny", reason: "no rm" })).toEqual({
      decision: "deny",
      by: "hook",
      reason: "no rm",
    });
    expect(engine({ mode: "bypass" }).decide(rm, { decision: "deny" })).toMatchObject({ decision: "deny", by: "hook" });
  });

  it("2. a deny rule beats a hook's ask or allow, an ask rule, an allow rule and the mode", () => {
    for (const decision of ["ask", "allow"] as const) {
      expect(engine(everything).decide(rm, { decision })).toEqual({
        decision: "deny",
        by: "rule",
        rule: "shell(rm -rf build)",
        reason: texts.deniedByRule("shell(rm -rf build)"),
      });
    }
  });

  it("3. a hook's ask beats an ask rule, an allow rule and the mode", () => {
    const { deny: _deny, ...noDeny } = everything;
    expect(engine(noDeny).decide(rm, { decision: "ask" })).toEqual({
      decision: "ask",
      by: "hook",
      reason: "a PreToolUse hook asks for approval of this call",
    });
  });

  it("4. an ask rule beats a hook's allow, an allow rule and the mode", () => {
    const { deny: _deny, ...noDeny } = everything;
    expect(engine(noDeny).decide(rm, { decision: "allow" })).toMatchObject({
      decision: "ask",
      by: "rule",
      rule: "shell(rm -rf:*)",
    });
    expect(engine(noDeny).decide(rm).reason).toContain('rule "shell(rm -rf:*)"');
  });

  it("5. a hook's allow beats the mode (read-only would deny)", () => {
    expect(engine({ mode: "read_only" }).decide(rm, { decision: "allow" })).toMatchObject({
      decision: "allow",
      by: "hook",
    });
    // and it is the hook, not the allow rule, that decides when both would allow
    expect(engine({ allow: ["shell"] }).decide(rm, { decision: "allow" }).by).toBe("hook");
  });

  it("6. an allow rule beats a session approval and the mode", () => {
    const e = engine({ mode: "read_only", allow: ["shell(rm:*)"] });
    e.rememberSession("shell");
    expect(e.decide(rm)).toMatchObject({ decision: "allow", by: "rule", rule: "shell(rm:*)" });
  });

  it("7. a session approval beats the mode", () => {
    const e = engine({ mode: "read_only" });
    e.rememberSession("shell(rm:*)");
    expect(e.decide(rm)).toMatchObject({ decision: "allow", by: "session", rule: "shell(rm:*)" });
  });

  it("8. then the mode", () => {
    expect(engine().decide(rm)).toMatchObject({ decision: "ask", by: "mode" });
  });

  it("a rule that does not match leaves the decision to the rows below", () => {
    const e = engine({ deny: ["shell(git push:*)"], ask: ["mcp__*"], allow: ["read_file(test/**)"] });
    expect(e.decide(rm)).toMatchObject({ decision: "ask", by: "mode" });
    expect(e.decide(readCall)).toMatchObject({ decision: "allow", by: "mode" });
  });

  it("a deny rule reports the first matching rule as written", () => {
    const e = engine({ deny: ["shell(git:*)", "shell( rm:* )", "shell"] });
    expect(e.decide(rm)).toMatchObject({ rule: "shell( rm:* )", reason: texts.deniedByRule("shell( rm:* )") });
  });
});

describe("PermissionEngine.decide: modes", () => {
  it('defaults to "default": allow what changes nothing, ask the rest', () => {
    const e = engine();
    expect(e.mode).toBe("default");
    expect(e.decide(readCall)).toMatchObject({ decision: "allow", by: "mode" });
    expect(e.decide(rm)).toMatchObject({ decision: "ask", by: "mode" });
    expect(e.decide(rm).reason).toContain("shell may change files or state");
  });

  it("bypass allows everything", () => {
    const e = engine({ mode: "bypass" });
    expect(e.decide(readCall).decision).toBe("allow");
    expect(e.decide(rm)).toMatchObject({ decision: "allow", by: "mode" });
  });

  it("read_only allows what changes nothing and denies the rest with the read-only text", () => {
    const e = engine({ mode: "read_only" });
    expect(e.decide(readCall).decision).toBe("allow");
    expect(e.decide(rm)).toEqual({ decision: "deny", by: "mode", reason: texts.deniedReadOnly("shell") });
  });

  describe("accept_edits", () => {
    const e = engine({ mode: "accept_edits" });

    it("allows what changes nothing", () => {
      expect(e.decide(readCall).decision).toBe("allow");
    });

    it("allows file edits inside cwd, the default writable root", () => {
      expect(e.decide(edit(["src/a.ts", "/proj/README.md"]))).toMatchObject({ decision: "allow", by: "mode" });
    });

    it("asks for file edits with any path outside the writable roots", () => {
      expect(e.decide(edit(["src/a.ts", "../other/b.ts"]))).toMatchObject({ decision: "ask", by: "mode" });
      expect(e.decide(edit(["src/../../etc/passwd"])).decision).toBe("ask");
      expect(e.decide(edit(["/etc/passwd"])).reason).toContain("outside the writable roots");
    });

    it("uses the given writable roots, resolved against cwd", () => {
      const roots = { writableRoots: ["/tmp/scratch", "../sibling"] };
      expect(e.decide(edit(["/tmp/scratch/x", "../sibling/y"], roots)).decision).toBe("allow");
      expect(e.decide(edit(["src/a.ts"], roots)).decision).toBe("ask"); // cwd is no longer a root
      expect(e.decide(edit(["/tmp/scratchpad/x"], roots)).decision).toBe("ask"); // a sibling, not inside
    });

    it("asks for a file edit without paths, and for mutating calls that are not file edits", () => {
      expect(e.decide({ ...edit([]), subject: undefined }).decision).toBe("ask");
      expect(e.decide(edit([])).decision).toBe("ask");
      expect(e.decide(rm)).toMatchObject({ decision: "ask", by: "mode" });
      expect(e.decide(rm).reason).toContain("not a file edit");
    });
  });
});

describe("PermissionEngine.decide: risk", () => {
  const risky = (risk: unknown): PolicyCall => ({ ...rm, risk });

  it("askAtRisk medium: a mode allow becomes ask at medium or high", () => {
    const e = engine({ mode: "bypass", riskField: true, askAtRisk: "medium" });
    expect(e.decide(risky("low")).decision).toBe("allow");
    expect(e.decide(risky("medium"))).toMatchObject({ decision: "ask", by: "mode" });
    expect(e.decide(risky("high")).decision).toBe("ask");
    expect(e.decide(risky("high")).reason).toContain('at or above the "medium" threshold');
  });

  it("askAtRisk high: only high asks", () => {
    const e = engine({ mode: "bypass", riskField: true, askAtRisk: "high" });
    expect(e.decide(risky("low")).decision).toBe("allow");
    expect(e.decide(risky("medium")).decision).toBe("allow");
    expect(e.decide(risky("high")).decision).toBe("ask");
  });

  it("a missing or invalid risk counts as high", () => {
    const e = engine({ mode: "bypass", riskField: true, askAtRisk: "high" });
    for (const risk of [undefined, null, "critical", "HIGH", 2, { level: "low" }]) {
      expect(e.decide(risky(risk))).toMatchObject({ decision: "ask", by: "mode" });
    }
    expect(e.decide(risky(undefined)).reason).toContain("counts as high");
  });

  it("applies to accept_edits' allowed edits", () => {
    const e = engine({ mode: "accept_edits", riskField: true, askAtRisk: "medium" });
    expect(e.decide(edit(["src/a.ts"], { risk: "low" })).decision).toBe("allow");
    expect(e.decide(edit(["src/a.ts"], { risk: "high" })).decision).toBe("ask");
  });

  it("turns only the mode's allows of mutating calls into ask", () => {
    const e = engine({ mode: "bypass", riskField: true, askAtRisk: "medium", allow: ["shell(rm:*)"] });
    expect(e.decide(risky("high"))).toMatchObject({ decision: "allow", by: "rule" }); // a rule's allow
    expect(e.decide(risky("high"), { decision: "allow" }).decision).toBe("allow"); // a hook's allow
    expect(e.decide(readCall).decision).toBe("allow"); // not mutating: its schema has no risk field
  });

  it("needs riskField: without it the model gives no risk and askAtRisk is not applied", () => {
    const e = engine({ mode: "bypass", askAtRisk: "medium" });
    expect(e.decide(risky(undefined)).decision).toBe("allow");
  });
});

describe("PermissionEngine: session approvals", () => {
  it("are remembered across turns and only for what they name", () => {
    const e = engine();
    const turn1: PolicyCall = { ...rm, subject: { commands: [["git", "commit", "-m", "one"]] } };
    expect(e.decide(turn1).decision).toBe("ask");
    const [suggested] = e.suggestRules(turn1);
    expect(suggested).toBe("shell(git commit:*)");
    e.rememberSession(suggested!);

    const turn2: PolicyCall = { ...rm, cwd: "/proj/sub", subject: { commands: [["git", "commit", "--amend"]] } };
    expect(e.decide(turn2)).toMatchObject({ decision: "allow", by: "session", rule: "shell(git commit:*)" });
    expect(e.decide(rm)).toMatchObject({ decision: "ask", by: "mode" });
    expect(e.sessionRules()).toEqual(["shell(git commit:*)"]);
  });

  it("are deduplicated, validated, and never beat a deny or ask rule", () => {
    const e = engine({ ask: ["shell(rm:*)"] });
    e.rememberSession("shell");
    e.rememberSession("shell");
    expect(e.sessionRules()).toEqual(["shell"]);
    expect(() => {
      e.rememberSession("shell(");
    }).toThrow('invalid permission rule "shell(": unbalanced parentheses');
    expect(e.decide(rm)).toMatchObject({ decision: "ask", by: "rule" });
  });

  it("sessionRules returns a copy", () => {
    const e = engine();
    e.sessionRules().push("shell");
    expect(e.sessionRules()).toEqual([]);
  });
});

describe("PermissionEngine.suggestRules", () => {
  const sh = (commands: string[][] | null, toolName = "shell"): PolicyCall => ({
    toolName,
    subject: { commands },
    mutating: true,
    cwd: CWD,
  });

  it.each([
    ["git commit -m x", sh([["git", "commit", "-m", "x"]]), ["shell(git commit:*)"]],
    ["a flag second word", sh([["ls", "-la"]]), ["shell(ls:*)"]],
    ["a path second word", sh([["cat", "src/a.ts"]]), ["shell(cat:*)"]],
    ["one word", sh([["pwd"]]), ["shell(pwd:*)"]],
    ["the call's tool name", sh([["git", "status"]], "local_shell"), ["local_shell(git status:*)"]],
    ["the first command of a script", sh([["npm", "install"], ["make"]]), ["shell(npm install:*)"]],
    ["an unparsable script: nothing narrower than every command", sh(null), []],
    ["no commands", sh([]), []],
    ["a file below a directory", edit(["src/policy/engine.ts"]), ["apply_patch(src/policy/**)"]],
    ["a file at the root: anchored", edit(["README.md"]), ["apply_patch(./README.md)"]],
    ["the first path, normalized", edit(["lib/../src/a.ts", "test/b.ts"]), ["apply_patch(src/**)"]],
    ["an absolute path inside cwd", edit(["/proj/docs/a.md"]), ["apply_patch(docs/**)"]],
    ["a path outside cwd", edit(["/etc/passwd"]), ["apply_patch(/etc/**)"]],
    ["a file at /", edit(["/x"]), ["apply_patch(/x)"]],
    ["cwd itself: no glob names only it", edit(["."]), []],
    ["an MCP tool", { toolName: "mcp__github__create_issue", mutating: true, cwd: CWD }, ["mcp__github__create_issue"]],
    ["a tool name no rule can name", { toolName: "my.tool", mutating: true, cwd: CWD }, []],
  ])("%s", (_name, call, expected) => {
    expect(engine().suggestRules(call)).toEqual(expected);
  });

  it("puts the handler's own suggestions first, dropping those that are not rules", () => {
    const e = engine();
    expect(e.suggestRules(rm, ["shell(rm -rf build)", "shell(rm:*)"])).toEqual(["shell(rm -rf build)", "shell(rm:*)"]);
    expect(e.suggestRules(rm, ["shell(", "shell(rm:*)"])).toEqual(["shell(rm:*)"]);
    expect(e.suggestRules(rm, ["shell("])).toEqual(["shell(rm:*)"]);
    expect(e.suggestRules(rm, [])).toEqual(["shell(rm:*)"]);
  });

  it("suggests rules that read back as the call's own command or directory", () => {
    const e = engine();
    const odd: PolicyCall[] = [
      sh([["/opt/my tool/bin", "run"]]),
      sh([["a(b", "x"]]),
      sh([["it's", "x"]]),
      edit(["app/[id]/page.tsx"]),
      edit(["docs/a (1)/b.md"]),
      edit(["notes {draft}.md"]),
    ];
    for (const call of odd) {
      const [rule] = e.suggestRules(call);
      const session = engine();
      session.rememberSession(rule!);
      expect(session.decide(call), rule).toMatchObject({ decision: "allow", by: "session" });
    }
  });

  it("never suggests a rule broader than the call", () => {
    const e = engine();
    const calls = [sh([["*"]]), sh([["**"]]), edit(["a"]), edit(["*/x"]), sh(null)];
    for (const rule of calls.flatMap((call) => e.suggestRules(call))) {
      expect(rule).not.toMatch(/\((\*|\*\*|\.\/\*\*|:\*)\)$/);
      expect(rule).not.toBe("shell");
    }
  });
});

describe("PermissionEngine: construction", () => {
  it("parses every rule at once: a malformed one throws, naming it", () => {
    expect(() => engine({ allow: ["shell(git status)"], deny: ["read_file(src/**"] })).toThrow(
      'invalid permission rule "read_file(src/**": unbalanced parentheses',
    );
    expect(() => engine({ ask: ["bad tool"] })).toThrow('invalid permission rule "bad tool"');
  });

  it("rejects settings a config file may get wrong", () => {
    const hostile = (policy: unknown): PermissionEngine => new PermissionEngine(policy as PermissionPolicy);
    expect(() => hostile({ mode: "yolo" })).toThrow('unknown mode "yolo"');
    expect(() => hostile({ askAtRisk: "low" })).toThrow("askAtRisk");
    expect(() => hostile({ approvalTimeoutMs: -1 })).toThrow("approvalTimeoutMs");
    expect(() => hostile({ riskField: "yes" })).toThrow("riskField");
    expect(() => hostile({ approve: "me" })).toThrow("approve");
    expect(() => hostile({ allow: "shell" })).toThrow("allow must be an array");
    expect(() => hostile({ deny: [3] })).toThrow("not a string");
    expect(() => hostile(null)).toThrow("expected an object");
  });

  it("exposes the settings the dispatcher needs", () => {
    const approve = async (): Promise<{ decision: "allow" }> => ({ decision: "allow" });
    const e = engine({ mode: "accept_edits", approve, approvalTimeoutMs: 30_000, riskField: true, askAtRisk: "high" });
    expect(e.mode).toBe("accept_edits");
    expect(e.approve).toBe(approve);
    expect(e.approvalTimeoutMs).toBe(30_000);
    expect(e.riskField).toBe(true);
    expect(e.askAtRisk).toBe("high");
    const plain = engine();
    expect([plain.approve, plain.approvalTimeoutMs, plain.riskField, plain.askAtRisk]).toEqual([
      undefined,
      undefined,
      false,
      undefined,
    ]);
  });

  it("answers the common case, a call that changes nothing, with one shared read-only verdict", () => {
    const e = engine({ deny: ["shell(rm:*)"] });
    const verdict = e.decide(readCall);
    expect(e.decide({ ...readCall, subject: { paths: ["b"] } })).toBe(verdict);
    expect(Object.isFrozen(verdict)).toBe(true);
  });
});

describe("compound scripts", () => {
  const call = (commands: string[][] | null): PolicyCall => ({
    toolName: "shell",
    subject: { commands, summary: "script" },
    mutating: true,
    cwd: "/work",
  });

  it("allows a script whose every command some allow rule covers, and says which rules", () => {
    const engine = new PermissionEngine({ allow: ["shell(git add:*)", "shell(git commit:*)"] });
    const verdict = engine.decide(
      call([
        ["git", "add", "."],
        ["git", "commit", "-m", "x"],
      ]),
    );
    expect(verdict).toMatchObject({ decision: "allow", by: "rule", rule: "shell(git add:*), shell(git commit:*)" });
  });

  it("asks when one command is covered by no rule, and never allows an unparsable script", () => {
    const engine = new PermissionEngine({ allow: ["shell(git add:*)"] });
    expect(
      engine.decide(
        call([
          ["git", "add", "."],
          ["git", "push"],
        ]),
      ).decision,
    ).toBe("ask");
    expect(engine.decide(call(null)).decision).toBe("ask");
  });

  it("a deny rule on any command still wins over the others' allows", () => {
    const engine = new PermissionEngine({ allow: ["shell(git add:*)", "shell(rm:*)"], deny: ["shell(rm:*)"] });
    expect(
      engine.decide(
        call([
          ["git", "add", "."],
          ["rm", "-rf", "x"],
        ]),
      ).decision,
    ).toBe("deny");
  });
});
