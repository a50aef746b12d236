import path from "node:path";
import { quote } from "shell-quote";
import { bashParserReady, loadBashParser, needsBashParser, plainCommands } from "../../util/index.js";

/**
 * Commands that only read: they never wait for the readiness gate. A port of Codex
 * `is_known_safe_command` (command_safety/is_safe_command.rs), Linux flavour.
 */
export function isKnownSafeCommand(command: readonly string[]): boolean {
  const argv = command.map((arg) => (arg === "zsh" ? "bash" : arg));
  if (isSafeToCallWithExec(argv)) return true;
  const script = parseShellLcPlainCommands(argv);
  return script !== undefined && script.length > 0 && script.every(isSafeToCallWithExec);
}

const ALWAYS_SAFE = new Set([
  "cat",
  "cd",
  "cut",
  "echo",
  "expr",
  "false",
  "grep",
  "head",
  "id",
  "ls",
  "nl",
  "paste",
  "pwd",
  "rev",
  "seq",
  "stat",
  "tail",
  "tr",
  "true",
  "uname",
  "uniq",
  "wc",
  "which",
  "whoami",
  "numfmt",
  "tac",
]);

const UNSAFE_FIND_OPTIONS = new Set([
  // run arbitrary commands
  "-exec",
  "-execdir",
  "-ok",
  "-okdir",
  // delete matches
  "-delete",
  // write pathnames to a file
  "-fls",
  "-fprint",
  "-fprint0",
  "-fprintf",
]);

/** `--pre` and `--hostname-bin` run a command; `-z` and `--search-zip` run decompressors. */
const UNSAFE_RG_WITH_VALUE = ["--pre", "--hostname-bin"];
const UNSAFE_RG_FLAGS = new Set(["--search-zip", "-z"]);

const UNSAFE_GIT_FLAGS = new Set(["--output", "--ext-diff", "--textconv", "--exec", "--paginate"]);

export function isSafeToCallWithExec(argv: readonly string[]): boolean {
  const cmd0 = argv[0];
  if (cmd0 === undefined) return false;
  const name = path.basename(cmd0);
  const args = argv.slice(1);
  if (ALWAYS_SAFE.has(name)) return true;
  switch (name) {
    case "base64":
      return !args.some((a) => a === "-o" || a === "--output" || a.startsWith("--output=") || a.startsWith("-o"));
    case "find":
      return !argv.some((a) => UNSAFE_FIND_OPTIONS.has(a));
    case "rg":
      return !argv.some(
        (a) => UNSAFE_RG_FLAGS.has(a) || UNSAFE_RG_WITH_VALUE.some((opt) => a === opt || a.startsWith(`${opt}=`)),
      );
    case "git":
      return isReadOnlyGit(argv);
    case "sed":
      // Only `sed -n {N|M,N}p [file]`.
      return argv.length <= 4 && argv[1] === "-n" && /^(\d+,)?\d+p$/.test(argv[2] ?? "");
    default:
      return false;
  }
}

const GIT_OPTIONS_WITH_VALUE = new Set([
  "-C",
  "-c",
  "--config-env",
  "--exec-path",
  "--git-dir",
  "--namespace",
  "--super-prefix",
  "--work-tree",
]);
const GIT_INLINE_VALUE_PREFIXES = [
  "--config-env=",
  "--exec-path=",
  "--git-dir=",
  "--namespace=",
  "--super-prefix=",
  "--work-tree=",
];

function isReadOnlyGit(argv: readonly string[]): boolean {
  // `-c core.pager=...` and friends can make git run arbitrary programs.
  if (
    argv.some(
      (a) =>
        a === "-c" || a === "--config-env" || (a.startsWith("-c") && a.length > 2) || a.startsWith("--config-env="),
    )
  ) {
    return false;
  }
  const found = findGitSubcommand(argv, ["status", "log", "diff", "show", "branch"]);
  if (!found) return false;
  const subArgs = argv.slice(found.index + 1);
  const readOnlyArgs = !subArgs.some(
    (a) => UNSAFE_GIT_FLAGS.has(a) || a.startsWith("--output=") || a.startsWith("--exec="),
  );
  return found.name === "branch" ? readOnlyArgs && isReadOnlyGitBranch(subArgs) : readOnlyArgs;
}

/** The first non-option word is git's subcommand; global options (and their values) come before it. */
export function findGitSubcommand(
  argv: readonly string[],
  wanted: string[],
): { index: number; name: string } | undefined {
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (
      GIT_INLINE_VALUE_PREFIXES.some((p) => arg.startsWith(p)) ||
      ((arg.startsWith("-C") || arg.startsWith("-c")) && arg.length > 2)
    ) {
      continue;
    }
    if (GIT_OPTIONS_WITH_VALUE.has(arg)) {
      i++;
      continue;
    }
    if (arg.startsWith("-")) continue;
    return wanted.includes(arg) ? { index: i, name: arg } : undefined;
  }
  return undefined;
}

const READ_ONLY_BRANCH_FLAGS = new Set([
  "--list",
  "-l",
  "--show-current",
  "-a",
  "--all",
  "-r",
  "--remotes",
  "-v",
  "-vv",
  "--verbose",
]);

/** `git branch` lists with no arguments or only listing flags; anything else may create or delete. */
function isReadOnlyGitBranch(args: readonly string[]): boolean {
  return args.every((a) => READ_ONLY_BRANCH_FLAGS.has(a) || a.startsWith("--format="));
}

const SCRIPT_SHELLS = new Set(["bash", "zsh", "sh"]);

/** `[bash|zsh|sh, -lc|-c, script]`: a script run by a shell. */
export function isShellScript(argv: readonly string[]): boolean {
  return (
    argv.length === 3 && (argv[1] === "-lc" || argv[1] === "-c") && SCRIPT_SHELLS.has(path.basename(argv[0] ?? ""))
  );
}

/** What a person reads: a script as it is, anything else with shell quoting. */
export function commandLine(argv: readonly string[]): string {
  return isShellScript(argv) ? (argv[2] ?? "") : quote([...argv]);
}

/**
 * Codex `parse_shell_lc_plain_commands`: `[bash|zsh|sh, -lc|-c, script]` -> the plain commands
 * of the script read with the bash grammar (words joined by `&& || ; |` and newlines), or
 * undefined for anything else: redirections, substitutions, variables, assignments,
 * subshells, control flow, background jobs, a parse error, or a script that needs the parser
 * while it is not loaded (`scriptNeedsParser`).
 */
export function parseShellLcPlainCommands(argv: readonly string[]): string[][] | undefined {
  if (!isShellScript(argv)) return undefined;
  const script = argv[2] as string;
  if (!bashParserReady() && needsBashParser(script)) return undefined;
  return plainCommands(script)?.map((c) => c.words);
}

/** A shell script argv whose known-safe verdict needs the bash parser, not loaded yet. */
export function scriptNeedsParser(argv: readonly string[]): boolean {
  return isShellScript(argv) && !bashParserReady() && needsBashParser(argv[2] as string);
}

/**
 * `isKnownSafeCommand`, loading the bash parser first when the verdict needs it: a promise
 * only then, so plain commands are classified at once.
 */
export function knownSafeOrLoad(argv: readonly string[]): boolean | Promise<boolean> {
  if (!scriptNeedsParser(argv)) return isKnownSafeCommand(argv);
  return loadBashParser().then(() => isKnownSafeCommand(argv));
}
