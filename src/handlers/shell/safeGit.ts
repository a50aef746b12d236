import path from "node:path";
import { bashParserReady, loadBashParser, needsBashParser, plainCommands } from "../../util/index.js";
import { findGitSubcommand, isSafeToCallWithExec, isShellScript } from "./safeCommand.js";

/**
 * Known-safe git commands run without asking, so a hostile repository must not make them run
 * its programs (S7): its fsmonitor, hooks, pager, signature program, external diff and
 * textconv drivers are switched off from the command line, which outranks every config file.
 */
const GLOBAL = [
  "-c",
  "core.fsmonitor=false",
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "log.showSignature=false",
  "-c",
  "gpg.program=gpg",
  "-c",
  "gpg.ssh.program=ssh-keygen",
  "-c",
  "gpg.x509.program=gpgsm",
  "--no-pager",
];
/** Subcommands that may show a diff: no external diff driver, no textconv filter. */
const DIFF_FLAGS = ["--no-ext-diff", "--no-textconv"];
const SHOWS_DIFF = new Set(["diff", "log", "show"]);
/** And no system-wide config (the user's own stays). */
export const HARDENED_GIT_ENV: Readonly<Record<string, string>> = { GIT_CONFIG_NOSYSTEM: "1" };

/** `git …` known to be safe, with the hardening inserted: undefined when it is not such a command. */
function hardenGitWords(words: readonly string[]): { globalAt: number; diffAt?: number } | undefined {
  if (path.basename(words[0] ?? "") !== "git" || !isSafeToCallWithExec(words)) return undefined;
  const sub = findGitSubcommand(words, [...SHOWS_DIFF, "status", "branch"]);
  if (sub === undefined) return undefined;
  return SHOWS_DIFF.has(sub.name) ? { globalAt: 1, diffAt: sub.index + 1 } : { globalAt: 1 };
}

/**
 * The argv to run for `argv`: a known-safe git command (alone, or in a plain `bash -lc`
 * script) hardened, anything else unchanged (`hardened: false`). A promise only when the
 * script needs the bash parser and it is not loaded.
 */
export function hardenKnownSafeGit(
  argv: readonly string[],
): { argv: readonly string[]; hardened: boolean } | Promise<{ argv: readonly string[]; hardened: boolean }> {
  if (!argv.some((a) => a.includes("git"))) return { argv, hardened: false };
  if (!isShellScript(argv)) {
    const at = hardenGitWords(argv);
    if (at === undefined) return { argv, hardened: false };
    const words = [...argv];
    if (at.diffAt !== undefined) words.splice(at.diffAt, 0, ...DIFF_FLAGS);
    words.splice(at.globalAt, 0, ...GLOBAL);
    return { argv: words, hardened: true };
  }
  const script = argv[2] as string;
  if (!bashParserReady() && needsBashParser(script)) {
    return loadBashParser().then(() => hardenKnownSafeGit(argv));
  }
  // Insert at the ends of words, last first so earlier offsets stay valid.
  const inserts: { at: number; text: string }[] = [];
  for (const command of plainCommands(script) ?? []) {
    const at = hardenGitWords(command.words);
    if (at === undefined) continue;
    inserts.push({ at: command.ends[0] ?? 0, text: ` ${GLOBAL.join(" ")}` });
    if (at.diffAt !== undefined)
      inserts.push({ at: command.ends[at.diffAt - 1] ?? 0, text: ` ${DIFF_FLAGS.join(" ")}` });
  }
  if (inserts.length === 0) return { argv, hardened: false };
  let hardened = script;
  for (const { at, text } of inserts.sort((a, b) => b.at - a.at))
    hardened = hardened.slice(0, at) + text + hardened.slice(at);
  return { argv: [argv[0] as string, argv[1] as string, hardened], hardened: true };
}
