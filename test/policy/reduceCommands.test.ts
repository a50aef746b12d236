import { beforeAll, describe, expect, it } from "vitest";
import { PermissionEngine, reduceCommands, type PolicyCall } from "../../src/policy/index.js";
import { bashParserReady, loadBashParser } from "../../src/util/index.js";

/*
 * What a script is reduced to (DESIGN section 11, "Rules judge what runs"): every command,
 * wrappers marked (`w:`), words known only at run time marked (`@index`), opaque and elevated
 * parts flagged; and how the engine's mode treats opaque and elevated calls.
 */
const show = (script: string): string[] => {
  const judged = reduceCommands([], [script]);
  const out = judged.commands.map(
    (c) => `${c.wrapper ? "w:" : ""}${c.words.join(" ")}${c.dynamicAt < c.words.length ? `@${c.dynamicAt}` : ""}`,
  );
  if (judged.opaque.length > 0) out.push("OPAQUE");
  if (judged.elevated) out.push("ELEVATED");
  return out;
};

describe("before the parser loads", () => {
  it("plain words need no grammar; anything else is opaque and asks for the parser", () => {
    if (bashParserReady()) return; // another file in this worker loaded it first
    expect(show("git status && ls -la | wc -l")).toEqual(["git status", "ls -la", "wc -l"]);
    const judged = reduceCommands([], ["echo $(rm V)"]);
    expect(judged.needsParser).toBe(true);
    expect(judged.opaque).toEqual(["echo $(rm V)"]);
  });
});

describe("reduceCommands", () => {
  beforeAll(() => loadBashParser());

  it.each([
    ["X=1 rm V", ["rm V"]],
    ["env -i -u X -C . A=1 rm V", ["w:env -i -u X -C . A=1 rm V", "rm V"]],
    ["env -S 'rm -f' V", ["w:env -S rm -f V", "rm -f V"]],
    ["command -v rm", ["w:command -v rm"]],
    ["timeout -s KILL 5 nice -n 1 rm V", ["w:timeout -s KILL 5 nice -n 1 rm V", "w:nice -n 1 rm V", "rm V"]],
    ["echo V | xargs -0 rm", ["echo V", "w:xargs -0 rm", "rm {input}@1"]],
    ["find . -name V -delete", ["find . -name V -delete", "rm {found}@1"]],
    ["find . -exec rm {} +", ["find . -exec rm {} +", "rm {}"]],
    ["sh -c \"bash -c 'rm V'\"", ["w:sh -c bash -c 'rm V'", "w:bash -c rm V", "rm V"]],
    ["bash <<EOF\nrm V\nEOF", ["w:bash", "rm V"]],
    ["bash script.sh", ["bash script.sh"]],
    ["git -C . -c a=b --no-pager push origin", ["w:git -C . -c a=b --no-pager push origin", "git push origin"]],
    ["git $X push", ["git $X push@1"]],
    ["f() { rm V; }; f", ["rm V", "f"]],
    ["echo `rm V` $(ls)", ["echo `rm V` $(ls)@1", "rm V", "ls"]],
    ["sudo -u root rm V", ["sudo -u root rm V", "rm V", "ELEVATED"]],
    ["eval 'rm V'", ["w:eval rm V", "OPAQUE"]],
    ["$CMD V", ["OPAQUE"]],
    ["echo rm V | bash", ["echo rm V", "w:bash", "OPAQUE"]],
    ["if true; then", ["OPAQUE"]],
    ["constructor x", ["constructor x"]],
  ])("%j", (script, expected) => {
    expect(show(script)).toEqual(expected);
  });
});

describe("the mode with opaque and elevated commands", () => {
  beforeAll(() => loadBashParser());
  const call = (script: string, toolName = "shell"): PolicyCall => ({
    toolName,
    subject: { scripts: [script] },
    mutating: true,
    cwd: "/proj",
  });

  it("sudo is asked even in bypass mode; an explicit rule naming sudo may allow it", () => {
    expect(new PermissionEngine({ mode: "bypass" }).decide(call("sudo ls")).decision).toBe("ask");
    expect(
      new PermissionEngine({ mode: "bypass", allow: ["shell(sudo ls)", "shell(ls)"] }).decide(call("sudo ls")).decision,
    ).toBe("allow");
    expect(new PermissionEngine({ mode: "bypass", allow: ["shell(ls)"] }).decide(call("sudo ls")).decision).toBe("ask");
  });

  it("an opaque script is allowed by bypass alone, asked once any shell deny or ask rule exists, never allowed by a rule", () => {
    expect(new PermissionEngine({ mode: "bypass" }).decide(call("$CMD x")).decision).toBe("allow");
    expect(new PermissionEngine({ mode: "bypass", deny: ["Bash(curl:*)"] }).decide(call("$CMD x")).decision).toBe(
      "ask",
    );
    expect(
      new PermissionEngine({ mode: "bypass", allow: ["shell(*)"], deny: ["shell(rm:*)"] }).decide(call("eval x"))
        .decision,
    ).toBe("ask");
    expect(
      new PermissionEngine({ mode: "bypass", deny: ["shell(rm:*)"] }).decide(call("CMD=rm; $CMD x")).decision,
    ).toBe("deny");
  });

  it("the outer shell of a -c script is judged: deny shell(bash -lc:*) denies bash -lc ls", () => {
    const engine = new PermissionEngine({ mode: "bypass", deny: ["shell(bash -lc:*)"] });
    const argv: PolicyCall = {
      toolName: "shell",
      subject: { commands: [["bash", "-lc", "ls"]] },
      mutating: true,
      cwd: "/",
    };
    expect(engine.decide(argv).decision).toBe("deny");
    // exec_command's own shell is the tool's, not the model's: its script alone is judged.
    expect(engine.decide(call("ls", "exec_command")).decision).toBe("allow");
  });
});
