import path from "node:path";

/**
 * apply_patch called as a command, the way Codex intercepts it (port of `maybe_parse_apply_patch`
 * in `codex-rs/apply-patch/src/invocation.rs`): models trained on Codex often run the patch
 * through the shell tool instead of calling the apply_patch tool.
 */
export interface ApplyPatchCommand {
  /** The patch text: the argument, or the heredoc's body (trailing newlines dropped, as Codex does). */
  patch: string;
  /** The `cd DIR &&` target as written (quotes removed); the caller resolves it against the command's workdir. */
  dir?: string;
}

const APPLY_PATCH_COMMANDS: ReadonlySet<string> = new Set(["apply_patch", "applypatch"]);

/** Codex `classify_shell_name`: the file stem, ASCII-lowercased (`/bin/BASH` -> `bash`, `cmd.exe` -> `cmd`). */
function shellName(shell: string): string {
  return path.parse(shell).name.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/** Codex `classify_shell`: bash, zsh, sh with `-lc` or `-c`; pwsh, powershell with `-Command`; cmd with `/c`. */
function isScriptFlag(shell: string, flag: string): boolean {
  switch (shellName(shell)) {
    case "bash":
    case "zsh":
    case "sh":
      return flag === "-lc" || flag === "-c";
    case "pwsh":
    case "powershell":
      return flag.toLowerCase() === "-command";
    case "cmd":
      return flag.toLowerCase() === "/c";
    default:
      return false;
  }
}

/** Codex `parse_shell_script`: `[shell, flag, script]`, or `[pwsh, -NoProfile, -Command, script]`. */
function shellScript(argv: readonly string[]): string | undefined {
  if (argv.length === 3) {
    const [shell = "", flag = "", script = ""] = argv;
    return isScriptFlag(shell, flag) ? script : undefined;
  }
  if (argv.length === 4) {
    const [shell = "", skip = "", flag = "", script = ""] = argv;
    const name = shellName(shell);
    const canSkip = (name === "pwsh" || name === "powershell") && skip.toLowerCase() === "-noprofile";
    return canSkip && isScriptFlag(shell, flag) ? script : undefined;
  }
  return undefined;
}

/**
 * `cd DIR && ` before the command: exactly one argument, a plain word (no expansion, glob,
 * tilde or option), a single-quoted string, or a double-quoted string with nothing to expand.
 */
const CD_PREFIX =
  /^cd[ \t]+(?:'(?<raw>[^']+)'|"(?<quoted>[^"\\$`]+)"|(?<word>(?![-~])[^\s|&;<>()$`\\"'*?[\]#~{}!]+))[ \t]*&&[ \t\r\n]*/;

/**
 * `apply_patch <<DELIM` (or `applypatch`, `<<-DELIM`), the delimiter bare or in single or double
 * quotes, and nothing else on the line: no argument, pipe, redirection or following command.
 */
const HEREDOC_START =
  /^(?:apply_patch|applypatch)[ \t]*<<(?<dash>-?)[ \t]*(?:'(?<single>[^'\n]+)'|"(?<double>[^"\\$`\n]+)"|(?<bare>[A-Za-z0-9_.@%+=:,^/-]+))[ \t]*\r?\n/;

/**
 * The heredoc form of a `bash -lc` script, the only statement in it: `apply_patch <<'EOF'` ...
 * `EOF`, optionally after `cd DIR && `. Codex matches it with a tree-sitter query
 * (`extract_apply_patch_from_bash`); this is the same set of scripts, read by hand:
 * - the closing line is the delimiter alone (trailing blanks and a `\r` allowed; leading tabs
 *   too after `<<-`), and only whitespace may follow it;
 * - a heredoc never closed, a second statement, or any other command is not an interception.
 * The body is taken literally whatever the delimiter's quoting (Codex reads the heredoc's text
 * too): `$x` in a patch under `<<EOF` stays `$x`.
 */
function heredocScript(script: string): ApplyPatchCommand | undefined {
  let rest = script.replace(/^\s+/, "");
  let dir: string | undefined;
  const cd = CD_PREFIX.exec(rest);
  if (cd) {
    const { raw, quoted, word } = cd.groups ?? {};
    dir = raw ?? quoted ?? word;
    rest = rest.slice(cd[0].length);
  }
  const start = HEREDOC_START.exec(rest);
  if (!start) return undefined;
  const { dash, single, double, bare } = start.groups ?? {};
  const delimiter = single ?? double ?? bare;
  if (delimiter === undefined) return undefined;
  const stripTabs = dash === "-";
  const lines = rest.slice(start[0].length).split("\n");
  const body: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = stripTabs ? (lines[i] ?? "").replace(/^\t+/, "") : (lines[i] ?? "");
    if (line.replace(/[ \t\r]+$/, "") === delimiter) {
      if (lines.slice(i + 1).some((after) => after.trim() !== "")) return undefined;
      const patch = body.join("\n").replace(/\n+$/, "");
      return dir === undefined ? { patch } : { patch, dir };
    }
    body.push(line);
  }
  return undefined; // never closed
}

/**
 * Is this command line apply_patch? Recognised, as Codex recognises them:
 * - `["apply_patch", PATCH]` and `["applypatch", PATCH]` (the bare name, no path);
 * - `[bash|zsh|sh (any path, any extension), "-lc"|"-c", SCRIPT]` (also `pwsh`/`powershell`
 *   `[-NoProfile] -Command SCRIPT` and `cmd /c SCRIPT`), SCRIPT being `apply_patch <<'EOF'`...`EOF`
 *   alone, optionally after `cd DIR && ` (see `heredocScript`).
 * Anything else is undefined: the command runs as it is. The patch is not parsed here; a bad
 * patch is still apply_patch's to answer.
 */
export function parseApplyPatchCommand(argv: readonly string[]): ApplyPatchCommand | undefined {
  if (argv.length === 2 && APPLY_PATCH_COMMANDS.has(argv[0] ?? "")) return { patch: argv[1] ?? "" };
  const script = shellScript(argv);
  return script === undefined ? undefined : heredocScript(script);
}
