import { beforeAll, describe, expect, it } from "vitest";
import { PermissionEngine, type PolicyCall } from "../../src/policy/index.js";
import { parseShellLcPlainCommands } from "../../src/handlers/shell/safeCommand.js";
import { loadBashParser } from "../../src/util/index.js";

/*
 * Codex parity (issue 26): the plain-command parse of codex-rs/core/src/bash.rs (tests ported
 * as they are) and the prefix-rule cases of codex-rs/execpolicy/tests/basic.rs written as our
 * rules. Where our semantics differ by design, the case says so and the README lists it.
 */
beforeAll(() => loadBashParser());

const parsed = (script: string): string[][] | undefined => parseShellLcPlainCommands(["bash", "-lc", script]);

describe("bash.rs parse_shell_lc_plain_commands", () => {
  it.each([
    ["ls -1", [["ls", "-1"]]],
    ["ls && pwd; echo 'hi there' | wc -l", [["ls"], ["pwd"], ["echo", "hi there"], ["wc", "-l"]]],
    ['echo "hello world"', [["echo", "hello world"]]],
    ["echo 'hi there'", [["echo", "hi there"]]],
    ['git commit -m "line1\nline2"', [["git", "commit", "-m", "line1\nline2"]]],
    [`echo "/usr"'/'"local"/bin`, [["echo", "/usr/local/bin"]]],
    [`echo '/usr'"/"'local'/bin`, [["echo", "/usr/local/bin"]]],
    ["echo 123 456", [["echo", "123", "456"]]],
    ['rg -n "foo" -g"*.py"', [["rg", "-n", "foo", "-g*.py"]]],
    ["grep -n 'pattern' -g'*.txt'", [["grep", "-n", "pattern", "-g*.txt"]]],
  ])("accepts %j", (script, commands) => {
    expect(parsed(script)).toEqual(commands);
  });

  it.each([
    'echo "hi ${USER}"',
    'echo "$HOME"',
    "(ls)",
    "ls || (pwd && echo hi)",
    "ls > out.txt",
    "echo hi & echo bye",
    "echo $(pwd)",
    "echo `pwd`",
    "echo $HOME",
    'echo "hi $USER"',
    "FOO=bar ls",
    "ls &&",
    "&& ls",
    "ls ;; pwd",
    "ls | | wc",
    'rg -g"$VAR" pattern',
    'rg -g"${VAR}" pattern',
    'rg -g"$(pwd)" pattern',
    `rg -g"$(echo '*.py')" pattern`,
    'for d in /usr/lib/jvm/*; do echo "$d"; done',
    "sleep 1 &",
  ])("rejects %j", (script) => {
    expect(parsed(script)).toBeUndefined();
  });

  it("accepts bash, zsh and sh with -lc or -c; nothing else", () => {
    for (const argv of [
      ["bash", "-lc", "ls"],
      ["bash", "-c", "ls"],
      ["sh", "-c", "ls"],
      ["zsh", "-lc", "ls"],
      ["/bin/bash", "-lc", "ls"],
    ]) {
      expect(parseShellLcPlainCommands(argv), argv.join(" ")).toEqual([["ls"]]);
    }
    expect(parseShellLcPlainCommands(["python", "-c", "print(1)"])).toBeUndefined();
  });
});

const CWD = "/proj";
const call = (argv: string[]): PolicyCall => ({
  toolName: "shell",
  subject: { commands: [argv] },
  mutating: true,
  cwd: CWD,
});
const decide = (policy: ConstructorParameters<typeof PermissionEngine>[0], argv: string[]) =>
  new PermissionEngine(policy).decide(call(argv)).decision;

describe("execpolicy basic.rs prefix rules, as our rules", () => {
  it("basic_match: pattern [git, status] allows git status", () => {
    expect(decide({ allow: ["shell(git status:*)"] }, ["git", "status"])).toBe("allow");
    expect(decide({ allow: ["shell(git status)"] }, ["git", "status"])).toBe("allow");
  });

  it("a forbidden [rm] prefix forbids rm -rf /some/important/folder", () => {
    expect(decide({ deny: ["shell(rm:*)"] }, ["rm", "-rf", "/some/important/folder"])).toBe("deny");
  });

  it("an allowed [ls] prefix allows ls -l over a prompting default", () => {
    expect(decide({ allow: ["shell(ls:*)"] }, ["ls", "-l"])).toBe("allow");
  });

  it("a prompting [ls, -l] prefix asks for ls -l /some/important/folder", () => {
    expect(decide({ mode: "bypass", ask: ["shell(ls -l:*)"] }, ["ls", "-l", "/some/important/folder"])).toBe("ask");
  });

  it("parses_multiple_policy_files: git prompts, git commit is forbidden (the strictest wins)", () => {
    const policy = { mode: "bypass" as const, ask: ["shell(git:*)"], deny: ["shell(git commit:*)"] };
    expect(decide(policy, ["git", "status"])).toBe("ask");
    expect(decide(policy, ["git", "commit", "-m", "hi"])).toBe("deny");
  });

  it("not_match: git --config color.status=always status is not git status (--config is no git option)", () => {
    expect(decide({ allow: ["shell(git status:*)"] }, ["git", "--config", "color.status=always", "status"])).toBe(
      "ask",
    );
  });

  it("differs by design: git's real global options are skipped, so git -C . status is git status", () => {
    expect(decide({ allow: ["shell(git status:*)"] }, ["git", "-C", ".", "status"])).toBe("allow");
  });

  it("differs by design: a [bash, -c] prefix does not allow the script it runs (allow judges what runs)", () => {
    expect(decide({ allow: ["shell(bash -c:*)"] }, ["bash", "-c", "echo hi"])).toBe("ask");
    expect(decide({ allow: ["shell(echo:*)"] }, ["bash", "-c", "echo hi"])).toBe("allow");
    // ...while a deny or ask on the wrapper still fires.
    expect(decide({ mode: "bypass", deny: ["shell(bash -c:*)"] }, ["bash", "-c", "echo hi"])).toBe("deny");
  });
});
