import os from "node:os";
import { describe, expect, it } from "vitest";
import { PermissionRule, type PolicyCall, type RuleMode } from "../../src/policy/index.js";

const CWD = "/proj";

const shell = (commands: string[][] | null, summary?: string, toolName = "shell"): PolicyCall => ({
  toolName,
  subject: summary === undefined ? { commands } : { commands, summary },
  mutating: true,
  cwd: CWD,
});

const files = (paths: string[], toolName = "read_file"): PolicyCall => ({
  toolName,
  subject: { paths },
  mutating: false,
  cwd: CWD,
});

const plugin = (toolName: string, matchRule?: (specifier: string) => boolean): PolicyCall =>
  matchRule === undefined ? { toolName, mutating: true, cwd: CWD } : { toolName, mutating: true, cwd: CWD, matchRule };

type Row = [name: string, rule: string, call: PolicyCall, mode: RuleMode, expected: boolean];

const ROWS: Row[] = [
  // shell: exact words and prefixes
  ["exact words", "shell(git status)", shell([["git", "status"]]), "allow", true],
  ["exact words, one more word", "shell(git status)", shell([["git", "status", "--short"]]), "allow", false],
  ["exact stays exact for deny", "shell(git status)", shell([["git", "status", "-s"]]), "deny", false],
  ["prefix with more words", "shell(git commit:*)", shell([["git", "commit", "-m", "x"]]), "allow", true],
  ["prefix, exactly the prefix", "shell(git commit:*)", shell([["git", "commit"]]), "allow", true],
  ["prefix, other subcommand", "shell(git commit:*)", shell([["git", "push"]]), "allow", false],
  ["prefix is by word, not by text", "shell(git commit:*)", shell([["git", "commitx"]]), "allow", false],
  ["separate :* word", "shell(git :*)", shell([["git", "log"]]), "allow", true],
  [
    "colon inside a word",
    "exec_command(npm run test:*)",
    shell([["npm", "run", "test", "-w"]], undefined, "exec_command"),
    "allow",
    true,
  ],
  [
    "colon word is not the prefix",
    "exec_command(npm run test:*)",
    shell([["npm", "run", "test:unit"]], undefined, "exec_command"),
    "allow",
    false,
  ],
  ["quoted words", 'shell(echo "a b")', shell([["echo", "a b"]]), "allow", true],
  ["quoted words differ", 'shell(echo "a b")', shell([["echo", "a", "b"]]), "allow", false],
  ["star: any command", "shell(*)", shell([["anything", "at", "all"]]), "allow", true],
  ["no commands at all", "shell(*)", shell([]), "allow", false],
  // shell: scripts split into commands (&&, |, ;)
  [
    "&&: every command allowed",
    "shell(git:*)",
    shell([
      ["git", "add", "."],
      ["git", "commit"],
    ]),
    "allow",
    true,
  ],
  [
    "|: one command not allowed",
    "shell(git:*)",
    shell([
      ["git", "log"],
      ["grep", "x"],
    ]),
    "allow",
    false,
  ],
  [
    "&&: exact rule covers one of two",
    "shell(git status)",
    shell([
      ["git", "status"],
      ["git", "diff"],
    ]),
    "allow",
    false,
  ],
  [";: deny fires on any command", "shell(rm:*)", shell([["ls"], ["rm", "-rf", "x"]]), "deny", true],
  ["|: ask fires on any command", "shell(curl:*)", shell([["curl", "x"], ["sh"]]), "ask", true],
  ["deny, no command matches", "shell(rm:*)", shell([["ls"], ["cat", "rm"]]), "deny", false],
  // shell: the first word, exact for allow, by basename for deny and ask
  ["allow: a path is not the command", "shell(git status)", shell([["/tmp/evil/git", "status"]]), "allow", false],
  ["deny: basename catches the path", "shell(rm:*)", shell([["/usr/bin/rm", "-rf", "x"]]), "deny", true],
  ["ask: basename catches the path", "shell(rm:*)", shell([["/bin/rm", "x"]]), "ask", true],
  ["deny: rule path, command basename", "shell(/usr/bin/rm:*)", shell([["rm", "x"]]), "deny", true],
  // shell: nested scripts (deny and ask look inside, allow does not)
  ["deny: bash -c script", "shell(rm:*)", shell([["bash", "-c", "rm -rf /"]]), "deny", true],
  ["deny: sudo sh -c script", "shell(rm:*)", shell([["sudo", "sh", "-c", "cd / && rm -rf x"]]), "deny", true],
  // Rules judge what runs (issue 26): allow judges a `bash -c` script's commands, not the shell around it.
  ["allow: bash -c is judged by its script", "shell(rm:*)", shell([["bash", "-c", "rm x"]]), "allow", true],
  ["allow: bash -c script with another command", "shell(rm:*)", shell([["bash", "-c", "rm x; ls"]]), "allow", false],
  ["deny: -c of a non-shell is not a script", "shell(rm:*)", shell([["git", "-c", "rm", "log"]]), "deny", false],
  // shell: unparsable scripts
  ["allow: unparsable never matches", "shell(git status)", shell(null, "git status > out"), "allow", false],
  ["allow: even *", "shell(*)", shell(null, "ls > out"), "allow", false],
  ["deny: words in a substitution", "shell(git push:*)", shell(null, "echo $(git push origin)"), "deny", true],
  ["deny: words in quotes", "shell(rm:*)", shell(null, `x=1; bash -c "rm -rf /" > log`), "deny", true],
  ["deny: path first word", "shell(rm:*)", shell(null, "/bin/rm -rf x 2>&1"), "deny", true],
  ["deny: exact read as prefix", "shell(git status)", shell(null, "git status > out"), "deny", true],
  ["deny: words absent", "shell(rm:*)", shell(null, "ls > out"), "deny", false],
  ["deny: no text, fails closed", "shell(rm:*)", shell(null), "deny", true],
  ["ask: *", "shell(*)", shell(null, "ls > out"), "ask", true],
  // shell vs local_shell
  ["shell names local_shell", "shell(git status)", shell([["git", "status"]], undefined, "local_shell"), "allow", true],
  // Tool families (issue 26): a rule on one shell tool covers them all (it used to cover only its own).
  ["local_shell names shell", "local_shell(git status)", shell([["git", "status"]]), "allow", true],
  ["bare shell: every call", "shell", shell(null, "ls > out"), "allow", true],
  ["bare shell tool, other shell tool", "shell", shell([["ls"]], undefined, "shell_command"), "allow", true],
  ["Bash names exec_command", "Bash(rm:*)", shell([["rm", "x"]], undefined, "exec_command"), "deny", true],
  ["bare tool, other tool", "shell", files(["a"], "read_file"), "allow", false],
  // files: globs relative to cwd
  ["relative glob", "apply_patch(src/**)", files(["src/a.ts"], "apply_patch"), "allow", true],
  ["allow needs every path", "apply_patch(src/**)", files(["src/a.ts", "test/b.ts"], "apply_patch"), "allow", false],
  ["deny fires on any path", "apply_patch(src/**)", files(["test/b.ts", "src/a.ts"], "apply_patch"), "deny", true],
  ["normalized: src/../x is x", "read_file(src/**)", files(["src/../x.ts"]), "allow", false],
  ["normalized: matched as x", "read_file(./x.ts)", files(["src/../x.ts"]), "allow", true],
  ["no slash: any depth", "read_file(*.md)", files(["docs/a/README.md"]), "allow", true],
  ["./: anchored at cwd", "read_file(./README.md)", files(["docs/README.md"]), "allow", false],
  ["./: the root file", "read_file(./README.md)", files(["README.md"]), "allow", true],
  ["**/ prefix: any depth", "read_file(**/secret*)", files(["a/b/secret.txt"]), "deny", true],
  ["dotfiles are matched", "read_file(src/**)", files(["src/.env"]), "deny", true],
  ["a directory covers what is below", "read_file(secrets)", files(["config/secrets/key"]), "deny", true],
  ["trailing /: only below", "read_file(build/)", files(["out/build/x.js"]), "deny", true],
  ["a leading ! is literal", "read_file(!x)", files(["y"]), "allow", false],
  [". is cwd and below", "list_dir(.)", files(["."], "list_dir"), "allow", true],
  ["no paths", "read_file(**)", files([]), "allow", false],
  // files: absolute paths and paths outside cwd
  ["absolute glob", "read_file(/etc/**)", files(["/etc/passwd"]), "allow", true],
  ["absolute path inside cwd, relative glob", "read_file(src/**)", files(["/proj/src/a.ts"]), "allow", true],
  ["relative path, absolute glob", "read_file(/proj/src/**)", files(["src/a.ts"]), "allow", true],
  ["allow: ** stays inside cwd", "read_file(**)", files(["/etc/passwd"]), "allow", false],
  ["allow: ../ escapes cwd", "read_file(**)", files(["../other/x"]), "allow", false],
  ["deny: **-leading outside cwd", "read_file(**/secret*)", files(["/etc/secret.txt"]), "deny", true],
  ["deny: no-slash glob outside cwd", "read_file(*.pem)", files(["../keys/a.pem"]), "deny", true],
  ["deny: anchored glob stays in cwd", "read_file(src/**)", files(["../src/a.ts"]), "deny", false],
  ["../ glob beside cwd", "read_file(../sibling/**)", files(["../sibling/DESIGN.md"]), "allow", true],
  ["../ glob, absolute path", "read_file(../sibling/**)", files(["/sibling/DESIGN.md"]), "allow", true],
  ["~/ is the home directory", "read_file(~/.ssh/**)", files([`${os.homedir()}/.ssh/id_rsa`]), "deny", true],
  ["allow: *.md not outside cwd", "read_file(*.md)", files(["/etc/motd.md"]), "allow", false],
  // MCP wildcards and plugin tools
  ["MCP wildcard", "mcp__github__*", plugin("mcp__github__create_issue"), "allow", true],
  ["MCP wildcard, other server", "mcp__github__*", plugin("mcp__gitlab__create_issue"), "allow", false],
  ["wildcard in the middle", "mcp__*__read", plugin("mcp__fs__read"), "deny", true],
  ["* names every tool", "*", plugin("anything"), "allow", true],
  [
    "plugin matchRule",
    "web_fetch(domain:example.com)",
    plugin("web_fetch", (s) => s === "domain:example.com"),
    "allow",
    true,
  ],
  [
    "plugin matchRule says no",
    "web_fetch(domain:x.org)",
    plugin("web_fetch", (s) => s === "domain:example.com"),
    "deny",
    false,
  ],
  ["no matchRule: specifier never matches", "web_fetch(domain:example.com)", plugin("web_fetch"), "deny", false],
  ["bare plugin tool", "web_fetch", plugin("web_fetch"), "allow", true],
  ["wildcard with specifier", "mcp__github__*(repo:a)", plugin("mcp__github__x", (s) => s === "repo:a"), "allow", true],
  [
    "matchRule throws: no allow",
    "web_fetch(x)",
    plugin("web_fetch", () => {
      throw new Error("boom");
    }),
    "allow",
    false,
  ],
  [
    "matchRule throws: deny fires",
    "web_fetch(x)",
    plugin("web_fetch", () => {
      throw new Error("boom");
    }),
    "deny",
    true,
  ],
];

describe("PermissionRule matching", () => {
  it("has a table of at least 40 cases", () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(40);
  });

  const cases = ROWS.map(([name, rule, call, mode, expected]) => ({ name, rule, call, mode, expected }));
  it.each(cases)("$name: $rule as $mode", ({ rule, call, mode, expected }) => {
    expect(new PermissionRule(rule).matches(call, mode)).toBe(expected);
  });
});

describe("PermissionRule parsing", () => {
  it.each([
    ["", "the tool name is empty"],
    ["   ", "the tool name is empty"],
    ["(git status)", "the tool name is empty"],
    ["shell(", "unbalanced parentheses"],
    ["shell(git status", "unbalanced parentheses"],
    ["shell)", "unbalanced parentheses"],
    ["shell(x))", "unbalanced parentheses"],
    ["shell(x)y", "text after the closing parenthesis"],
    ["shell()", "the specifier in parentheses is empty"],
    ["shell(  )", "the specifier in parentheses is empty"],
    ["my tool", "may only use letters"],
    ["mcp.github", "may only use letters"],
    ["shell (ls)", "may only use letters"],
    ["shell(git status && rm x)", "plain words"],
    ["shell(echo $HOME)", "plain words"],
    ["shell(ls > out)", "plain words"],
    ["exec_command(:*)", "plain words"],
  ])("%j throws naming the rule", (rule, why) => {
    expect(() => new PermissionRule(rule)).toThrow(`invalid permission rule "${rule}": `);
    expect(() => new PermissionRule(rule)).toThrow(why);
  });

  it("keeps the rule as written and splits tool and specifier", () => {
    const rule = new PermissionRule(" shell( git commit:* ) ");
    expect(rule.rule).toBe(" shell( git commit:* ) ");
    expect(rule.tool).toBe("shell");
    expect(rule.specifier).toBe("git commit:*");
    expect(new PermissionRule("mcp__github__*").specifier).toBeUndefined();
  });

  it("accepts escaped and nested parentheses", () => {
    expect(new PermissionRule("shell(echo \\()").matches(shell([["echo", "("]]), "allow")).toBe(true);
    expect(new PermissionRule("read_file(src/@(a|b)/**)").matches(files(["src/b/x"]), "allow")).toBe(true);
  });

  it("lets a non-shell tool have a specifier that is not command words", () => {
    expect(() => new PermissionRule("web_fetch(a > b)")).not.toThrow();
    // ...which then never names a command.
    expect(new PermissionRule("*(a > b)").matches(shell([["a"]]), "deny")).toBe(false);
  });
});
