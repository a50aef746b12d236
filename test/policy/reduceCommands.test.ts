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
    ["bash -c -- 'rm V'", ["w:bash -c -- rm V", "rm V"]],
    ["trap 'rm V' EXIT", ["w:trap rm V EXIT", "rm V"]],
    ["trap -p", ["w:trap -p"]],
    ["alias a='rm V' b=ls", ["w:alias a=rm V b=ls", "rm V", "ls"]],
    ["source ./env.sh", ["source ./env.sh"]],
    ["source /dev/stdin <<< 'rm V'", ["w:source /dev/stdin", "rm V"]],
    [". <(echo rm V)", ["w:. <(echo rm V)@1", "echo rm V", "OPAQUE"]],
    ["bash /proc/self/fd/0 <<< 'rm V'", ["w:bash /proc/self/fd/0", "rm V"]],
    ["script -qc 'rm V' /dev/null", ["w:script -qc rm V /dev/null", "rm V"]],
    ["script -q log <<< 'rm V'", ["w:script -q log", "rm V"]],
    ["strace -f -e trace=open -o log rm V", ["w:strace -f -e trace=open -o log rm V", "rm V"]],
    ["ltrace -o log rm V", ["w:ltrace -o log rm V", "rm V"]],
    ["valgrind --tool=none rm V", ["w:valgrind --tool=none rm V", "rm V"]],
    ["nsenter -t 1 -m -u rm V", ["w:nsenter -t 1 -m -u rm V", "rm V"]],
    ["unshare -m --propagation private rm V", ["w:unshare -m --propagation private rm V", "rm V"]],
    ["chroot --userspec 0:0 / rm V", ["w:chroot --userspec 0:0 / rm V", "rm V"]],
    ["setpriv --reuid 0 rm V", ["w:setpriv --reuid 0 rm V", "rm V"]],
    ["prlimit --nofile=9 rm V", ["w:prlimit --nofile=9 rm V", "rm V"]],
    ["prlimit --pid 1", ["w:prlimit --pid 1"]],
    ["systemd-run --user -p X=1 --wait rm V", ["w:systemd-run --user -p X=1 --wait rm V", "rm V"]],
    ["fakeroot -- rm V", ["w:fakeroot -- rm V", "rm V"]],
    ["xvfb-run -a -s '-screen 0' rm V", ["w:xvfb-run -a -s -screen 0 rm V", "rm V"]],
    ["faketime '2020-01-01' rm V", ["w:faketime 2020-01-01 rm V", "rm V"]],
    ["parallel -j 2 rm ::: V", ["w:parallel -j 2 rm ::: V", "rm ::: V {input}@3"]],
    ["sg wheel 'rm V'", ["w:sg wheel rm V", "rm V"]],
    ["runuser -u root -- rm V", ["runuser -u root -- rm V", "rm V", "ELEVATED"]],
    ["runuser root -c 'rm V'", ["runuser root -c rm V", "rm V", "ELEVATED"]],
    ["git -c 'alias.p=!rm V' p", ["w:git -c alias.p=!rm V p", "OPAQUE"]],
    ["git -c alias.p=push p", ["w:git -c alias.p=push p", "OPAQUE"]],
    ["git --config-env=core.pager=PAGER log", ["w:git --config-env=core.pager=PAGER log", "OPAQUE"]],
    ["git --exec-path=/tmp/x status", ["w:git --exec-path=/tmp/x status", "OPAQUE"]],
    [
      "git -c core.fsmonitor=false -c color.ui=never status",
      ["w:git -c core.fsmonitor=false -c color.ui=never status", "git status"],
    ],
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
