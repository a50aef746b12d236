import { describe, expect, it } from "vitest";
import { parseApplyPatchCommand } from "../../../src/handlers/apply_patch/index.js";

/*
 * apply_patch as a command line, recognised as Codex's `maybe_parse_apply_patch` recognises it
 * (codex-rs/apply-patch/src/invocation.rs); the cases of its tests are ported first.
 */
const PATCH = "*** Begin Patch\n*** Add File: foo\n+hi\n*** End Patch";
const heredoc = (prefix: string, suffix = ""): string => `${prefix}apply_patch <<'PATCH'\n${PATCH}\nPATCH${suffix}`;
const bash = (script: string): string[] => ["bash", "-lc", script];

describe("parseApplyPatchCommand: the direct form", () => {
  it.each(["apply_patch", "applypatch"])("%s PATCH is the patch as given", (name) => {
    expect(parseApplyPatchCommand([name, `${PATCH}\n`])).toEqual({ patch: `${PATCH}\n` });
  });

  it("takes any second argument as the patch (a bad one is apply_patch's error to give), like Codex", () => {
    expect(parseApplyPatchCommand(["apply_patch", "fix.patch"])).toEqual({ patch: "fix.patch" });
  });

  it.each([
    ["a path to the program", ["/usr/local/bin/apply_patch", PATCH]],
    ["no patch", ["apply_patch"]],
    ["a third argument", ["apply_patch", PATCH, "extra"]],
    ["another name", ["apply-patch", PATCH]],
    ["the patch alone", [PATCH]],
    ["nothing", []],
  ])("is not %s", (_what, argv) => {
    expect(parseApplyPatchCommand(argv)).toBeUndefined();
  });
});

describe("parseApplyPatchCommand: a shell script with a heredoc", () => {
  it("reads `apply_patch <<'PATCH'` under bash -lc and bash -c (Codex test_heredoc, test_heredoc_non_login_shell)", () => {
    expect(parseApplyPatchCommand(bash(heredoc("")))).toEqual({ patch: PATCH });
    expect(parseApplyPatchCommand(["bash", "-c", heredoc("")])).toEqual({ patch: PATCH });
  });

  it("reads applypatch too (test_heredoc_applypatch)", () => {
    expect(parseApplyPatchCommand(bash(`applypatch <<'PATCH'\n${PATCH}\nPATCH`))).toEqual({ patch: PATCH });
  });

  it.each([
    ["bash", "-lc"],
    ["/bin/bash", "-c"],
    ["/usr/bin/zsh", "-lc"],
    ["sh", "-c"],
    ["/bin/BASH", "-lc"],
    ["bash.exe", "-c"],
    ["pwsh", "-Command"],
    ["powershell.exe", "-command"],
    ["cmd.exe", "/C"],
  ])("accepts %s %s (Codex classify_shell: the file stem, lowercased)", (shell, flag) => {
    expect(parseApplyPatchCommand([shell, flag, heredoc("")])).toEqual({ patch: PATCH });
  });

  it("accepts pwsh -NoProfile -Command, the one flag Codex skips", () => {
    expect(parseApplyPatchCommand(["pwsh", "-NoProfile", "-Command", heredoc("")])).toEqual({ patch: PATCH });
    expect(parseApplyPatchCommand(["bash", "-NoProfile", "-c", heredoc("")])).toBeUndefined();
  });

  it.each([
    ["-l", ["bash", "-l", heredoc("")]],
    ["-e -c", ["bash", "-e", "-c", heredoc("")]],
    ["--login -c", ["bash", "--login", "-c", heredoc("")]],
    ["-C (case matters for Unix shells)", ["bash", "-C", heredoc("")]],
    ["fish", ["fish", "-c", heredoc("")]],
    ["dash", ["dash", "-c", heredoc("")]],
    ["env bash", ["env", "bash", "-c", heredoc("")]],
  ])("does not accept %s", (_what, argv) => {
    expect(parseApplyPatchCommand(argv)).toBeUndefined();
  });

  it("reads `cd DIR && ` before it (test_heredoc_with_leading_cd)", () => {
    expect(parseApplyPatchCommand(bash(heredoc("cd foo && ")))).toEqual({ patch: PATCH, dir: "foo" });
    expect(parseApplyPatchCommand(bash(heredoc("cd /abs/dir-1.2 && ")))).toEqual({ patch: PATCH, dir: "/abs/dir-1.2" });
    expect(parseApplyPatchCommand(bash(heredoc("cd foo &&\n  ")))).toEqual({ patch: PATCH, dir: "foo" });
  });

  it("reads a quoted cd path with spaces (test_cd_single_quoted_path_with_spaces, ..._double_...)", () => {
    expect(parseApplyPatchCommand(bash(heredoc("cd 'foo bar' && ")))).toEqual({ patch: PATCH, dir: "foo bar" });
    expect(parseApplyPatchCommand(bash(heredoc('cd "foo bar" && ')))).toEqual({ patch: PATCH, dir: "foo bar" });
  });

  it.each([
    ["cd foo; ", "test_cd_with_semicolon_is_ignored"],
    ["cd bar || ", "test_cd_or_apply_patch_is_ignored"],
    ["cd bar | ", "test_cd_pipe_apply_patch_is_ignored"],
    ["echo foo && ", "test_echo_and_apply_patch_is_ignored"],
    ["cd foo && cd bar && ", "test_double_cd_then_apply_patch_is_ignored"],
    ["cd foo bar && ", "test_cd_two_args_is_ignored"],
    ["echo foo; cd bar && ", "test_echo_then_cd_and_apply_patch_is_ignored"],
    ["cd $HOME && ", "an expansion"],
    ['cd "$HOME/x" && ', "an expansion in double quotes"],
    ["cd ~/x && ", "a tilde"],
    ["cd src/* && ", "a glob"],
    ["cd - && ", "an option (cd - is the previous directory)"],
    ["cd 'a b'/c && ", "a word made of several parts"],
    ["cd '' && ", "an empty path"],
    ["cd && ", "no path"],
  ])("ignores `%s` before it (%s)", (prefix) => {
    expect(parseApplyPatchCommand(bash(heredoc(prefix)))).toBeUndefined();
  });

  it("ignores a command after it (test_cd_then_apply_patch_then_extra_is_ignored)", () => {
    expect(parseApplyPatchCommand(bash(heredoc("cd bar && ", " && echo done")))).toBeUndefined();
    expect(parseApplyPatchCommand(bash(heredoc("", "\necho done")))).toBeUndefined();
    expect(parseApplyPatchCommand(bash(`apply_patch <<'PATCH' && echo done\n${PATCH}\nPATCH`))).toBeUndefined();
    expect(parseApplyPatchCommand(bash(`apply_patch <<'PATCH' | tee log\n${PATCH}\nPATCH`))).toBeUndefined();
  });

  it("ignores apply_patch with an argument or another input (test_apply_patch_with_arg_is_ignored)", () => {
    expect(parseApplyPatchCommand(bash(`apply_patch foo <<'PATCH'\n${PATCH}\nPATCH`))).toBeUndefined();
    expect(parseApplyPatchCommand(bash("apply_patch < fix.patch"))).toBeUndefined();
    expect(parseApplyPatchCommand(bash("apply_patch fix.patch"))).toBeUndefined();
    expect(parseApplyPatchCommand(bash('apply_patch <<< "$PATCH"'))).toBeUndefined();
    expect(parseApplyPatchCommand(bash(`apply_patch <<'PATCH' > out\n${PATCH}\nPATCH`))).toBeUndefined();
  });

  it("ignores another command reading a heredoc, and a comment before apply_patch", () => {
    expect(parseApplyPatchCommand(bash(`cat <<'PATCH'\n${PATCH}\nPATCH`))).toBeUndefined();
    expect(parseApplyPatchCommand(bash(`# edit\n${heredoc("")}`))).toBeUndefined();
  });

  it("reads every quoting of the delimiter, any word as the delimiter", () => {
    for (const start of ["<<EOF", "<<'EOF'", '<<"EOF"', "<< 'EOF'", "<<  EOF"]) {
      expect(parseApplyPatchCommand(bash(`apply_patch ${start}\n${PATCH}\nEOF`))).toEqual({ patch: PATCH });
    }
    expect(parseApplyPatchCommand(bash(`apply_patch<<END_OF_PATCH\n${PATCH}\nEND_OF_PATCH`))).toEqual({
      patch: PATCH,
    });
  });

  it("takes the body literally whatever the quoting: nothing is expanded (Codex reads the heredoc's text)", () => {
    const patch = "*** Begin Patch\n*** Add File: a.sh\n+echo $HOME `date` \\n\n*** End Patch";
    expect(parseApplyPatchCommand(bash(`apply_patch <<EOF\n${patch}\nEOF`))).toEqual({ patch });
  });

  it("ends the heredoc at the first line that is the delimiter, not at a line that only contains it", () => {
    const patch = "*** Begin Patch\n*** Update File: a.sh\n@@\n cat <<EOF\n EOF\n+EOF2\n*** End Patch";
    expect(parseApplyPatchCommand(bash(`apply_patch <<'EOF'\n${patch}\nEOF`))).toEqual({ patch });
  });

  it("allows whitespace around the script and blanks after the closing delimiter", () => {
    expect(parseApplyPatchCommand(bash(`\n  ${heredoc("")}\n\n  \n`))).toEqual({ patch: PATCH });
    expect(parseApplyPatchCommand(bash(`apply_patch <<'PATCH'  \n${PATCH}\nPATCH \t\n`))).toEqual({ patch: PATCH });
  });

  it("drops the body's trailing newlines, as Codex does, and keeps the rest as it is", () => {
    expect(parseApplyPatchCommand(bash(`apply_patch <<'PATCH'\n${PATCH}\n\n\nPATCH`))).toEqual({ patch: PATCH });
  });

  it("reads CRLF line ends: the patch keeps its \\r, which the patch parser drops", () => {
    const crlf = `apply_patch <<'PATCH'\r\n${PATCH.replaceAll("\n", "\r\n")}\r\nPATCH\r\n`;
    expect(parseApplyPatchCommand(bash(crlf))).toEqual({ patch: `${PATCH.replaceAll("\n", "\r\n")}\r` });
  });

  it("strips leading tabs from the body and the closing line under <<- (as bash does)", () => {
    const tabbed = `apply_patch <<-'PATCH'\n\t${PATCH.replaceAll("\n", "\n\t")}\n\tPATCH`;
    expect(parseApplyPatchCommand(bash(tabbed))).toEqual({ patch: PATCH });
  });

  it("is not an interception when the heredoc is never closed (Codex's query needs the heredoc's end)", () => {
    expect(parseApplyPatchCommand(bash(`apply_patch <<'PATCH'\n${PATCH}\n`))).toBeUndefined();
    expect(parseApplyPatchCommand(bash(`apply_patch <<'PATCH'\n${PATCH}\n  PATCH`))).toBeUndefined();
    expect(parseApplyPatchCommand(bash(`apply_patch <<'PATCH'\n${PATCH}\nPATCHES`))).toBeUndefined();
    expect(parseApplyPatchCommand(bash("apply_patch <<'PATCH'"))).toBeUndefined();
  });

  it("reads an empty heredoc (the patch is then apply_patch's error to give)", () => {
    expect(parseApplyPatchCommand(bash("apply_patch <<'PATCH'\nPATCH"))).toEqual({ patch: "" });
  });

  it("does not read a patch given as the script itself (Codex answers that with an error; here it runs)", () => {
    expect(parseApplyPatchCommand(bash(PATCH))).toBeUndefined();
  });
});
