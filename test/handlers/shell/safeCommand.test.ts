import { beforeAll, describe, expect, it } from "vitest";
import { isKnownSafeCommand, parseShellLcPlainCommands } from "../../../src/handlers/shell/safeCommand.js";
import { loadBashParser } from "../../../src/util/index.js";

// Scripts that are more than plain words are read with tree-sitter-bash, loaded once.
beforeAll(() => loadBashParser());

// Ported from Codex command_safety/is_safe_command.rs tests (Linux), plus the shell-script
// constructs our parser must refuse.
const SAFE: string[][] = [
  ["ls"],
  ["/bin/ls", "-la"],
  ["git", "status"],
  ["git", "branch"],
  ["git", "branch", "--show-current"],
  ["git", "-C", ".", "branch", "--show-current"],
  ["git", "log", "-n", "1"],
  ["git", "diff", "--stat"],
  ["git", "show", "HEAD"],
  ["git", "branch", "-a", "-v"],
  ["git", "branch", "--format=%(refname)"],
  ["base64"],
  ["sed", "-n", "1,5p", "file.txt"],
  ["sed", "-n", "10p"],
  ["nl", "-nrz", "Cargo.toml"],
  ["find", ".", "-name", "file.txt"],
  ["numfmt", "1000"],
  ["tac", "Cargo.toml"],
  ["rg", "Cargo.toml", "-n"],
  ["cat", "a", "b"],
  ["echo", "hi"],
  ["pwd"],
  ["wc", "-l", "x"],
  ["true"],
  ["false"],
  ["whoami"],
  ["zsh", "-lc", "ls"],
  ["bash", "-lc", "ls"],
  ["bash", "-lc", "ls -1"],
  ["bash", "-lc", "git status"],
  ["bash", "-lc", 'grep -R "Cargo.toml" -n'],
  ["bash", "-lc", "sed -n 1,5p file.txt"],
  ["bash", "-lc", "sed -n '1,5p' file.txt"],
  ["bash", "-lc", "find . -name file.txt"],
  ["bash", "-lc", 'grep -R "Cargo.toml" -n || true'],
  ["bash", "-lc", "ls && pwd"],
  ["bash", "-lc", "echo 'hi' ; ls"],
  ["bash", "-lc", "ls | wc -l"],
  ["/bin/bash", "-c", "ls *.ts"],
  ["sh", "-c", "echo '$HOME is literal here'"],
];

const UNSAFE: string[][] = [
  [],
  ["foo"],
  ["cargo", "check"],
  ["git", "fetch"],
  ["git", "checkout", "status"],
  ["git", "branch", "-d", "feature"],
  ["git", "branch", "new-branch"],
  ["git", "-C", ".", "branch", "-d", "feature"],
  ["git", "log", "--output=/tmp/git-log-out-test", "-n", "1"],
  ["git", "diff", "--output", "/tmp/git-diff-out-test"],
  ["git", "show", "--output=/tmp/git-show-out-test", "HEAD"],
  ["git", "-c", "core.pager=cat", "log", "-n", "1"],
  ["git", "-ccore.pager=cat", "status"],
  ["git", "diff", "--ext-diff"],
  ["sed", "-n", "xp", "file.txt"],
  ["sed", "-i", "s/a/b/", "f"],
  ["find", ".", "-name", "file.txt", "-exec", "rm", "{}", ";"],
  ["find", ".", "-name", "*.py", "-execdir", "python3", "{}", ";"],
  ["find", ".", "-name", "file.txt", "-ok", "rm", "{}", ";"],
  ["find", ".", "-name", "*.py", "-okdir", "python3", "{}", ";"],
  ["find", ".", "-delete", "-name", "file.txt"],
  ["find", ".", "-fls", "/etc/passwd"],
  ["find", ".", "-fprint", "/etc/passwd"],
  ["find", ".", "-fprint0", "/etc/passwd"],
  ["find", ".", "-fprintf", "/root/suid.txt", "%#m %u %p\n"],
  ["base64", "-o", "out.bin"],
  ["base64", "--output", "out.bin"],
  ["base64", "--output=out.bin"],
  ["base64", "-ob64.txt"],
  ["rg", "--search-zip", "files"],
  ["rg", "-z", "files"],
  ["rg", "--pre", "pwned", "files"],
  ["rg", "--pre=pwned", "files"],
  ["rg", "--hostname-bin", "pwned", "files"],
  ["rg", "--hostname-bin=pwned", "files"],
  ["rm", "-rf", "/"],
  ["touch", "x"],
  ["bash", "-lc", "git", "status"],
  ["bash", "-lc", "'git status'"],
  ["bash", "-lc", "find . -name file.txt -delete"],
  ["bash", "-lc", "ls && rm -rf /"],
  ["bash", "-lc", "(ls)"],
  ["bash", "-lc", "ls || (pwd && echo hi)"],
  ["bash", "-lc", "ls > out.txt"],
  ["bash", "-lc", "cat < in.txt"],
  ["bash", "-lc", "ls 2>&1"],
  ["bash", "-lc", "echo $(rm -rf x)"],
  ["bash", "-lc", "echo `rm -rf x`"],
  ["bash", "-lc", 'echo "$HOME"'],
  ["bash", "-lc", "echo ${HOME}"],
  ["bash", "-lc", "ls &"],
  ["bash", "-lc", "ls\nrm -rf x"],
  ["bash", "-lc", "ls # comment"],
  ["bash", "-lc", "FOO=1 ls"],
  ["bash", "-lc", "{ ls; }"],
  ["bash", "-lc", "ls &&"],
  ["bash", "-lc", ""],
  ["bash", "-lc", "git -C . branch -d feature"],
  ["fish", "-c", "ls"],
  ["bash", "-x", "ls"],
  ["bash", "-lc", "echo 'unterminated"],
  // Codex command_safety/is_dangerous_command.rs: dangerous commands are never known-safe.
  ["git", "reset"],
  ["bash", "-lc", "git reset --hard"],
  ["zsh", "-lc", "git reset --hard"],
  ["sudo", "git", "reset", "--hard"],
  ["/usr/bin/git", "reset", "--hard"],
  ["rm", "-f", "/"],
];

describe("isKnownSafeCommand", () => {
  it("has a table of at least 60 cases", () => {
    expect(SAFE.length + UNSAFE.length).toBeGreaterThanOrEqual(60);
  });

  it.each(SAFE.map((c) => [JSON.stringify(c), c] as const))("safe: %s", (_, command) => {
    expect(isKnownSafeCommand(command)).toBe(true);
  });

  it.each(UNSAFE.map((c) => [JSON.stringify(c), c] as const))("not safe: %s", (_, command) => {
    expect(isKnownSafeCommand(command)).toBe(false);
  });
});

describe("parseShellLcPlainCommands", () => {
  it("splits a script into its plain commands", () => {
    expect(parseShellLcPlainCommands(["bash", "-lc", "ls -1 && grep 'a b' f | wc -l; echo done"])).toEqual([
      ["ls", "-1"],
      ["grep", "a b", "f"],
      ["wc", "-l"],
      ["echo", "done"],
    ]);
  });

  it("returns undefined for anything that is not a bash/zsh/sh -c script", () => {
    expect(parseShellLcPlainCommands(["ls", "-lc", "ls"])).toBeUndefined();
    expect(parseShellLcPlainCommands(["bash", "-lc", "ls", "extra"])).toBeUndefined();
  });
});
