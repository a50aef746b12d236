import path from "node:path";
import { parse } from "shell-quote";
import type { RuleMode } from "./rules.js";

/**
 * A shell rule's specifier, compiled once: `git status` (exactly those words), `git commit:*`
 * (commands whose words begin with `git commit`) or `*` (any command).
 */
export interface CommandSpec {
  /** Undefined for `*`. */
  readonly words: readonly string[] | undefined;
  readonly prefix: boolean;
  /** The first word's basename: deny and ask rules also catch `/usr/bin/rm` with `rm`. */
  readonly firstBase: string;
  /** The words as `scriptTokens` reads a script, for scripts that could not be parsed. */
  readonly tokens: readonly string[];
}

const ANY: CommandSpec = { words: undefined, prefix: true, firstBase: "", tokens: [] };

/**
 * Reads a specifier the way the known-safe parser reads a script, so a rule's words are the
 * words a command would have: quotes are honoured (`echo "a b"` is two words), and anything
 * but plain words (operators, redirections, variables, comments) gives undefined.
 */
export function compileCommandSpec(specifier: string): CommandSpec | undefined {
  if (specifier === "*") return ANY;
  if (/[`\n\r]/.test(specifier) || specifier.includes("$(")) return undefined;
  let usesVariable = false;
  const words: string[] = [];
  try {
    for (const entry of parse(specifier, () => {
      usesVariable = true;
      return "";
    })) {
      if (typeof entry === "string") words.push(entry);
      else if ("op" in entry && entry.op === "glob") words.push(entry.pattern);
      else return undefined;
    }
  } catch {
    return undefined;
  }
  if (usesVariable) return undefined;
  let prefix = false;
  const last = words.at(-1);
  if (last === ":*") {
    words.pop();
    prefix = true;
  } else if (last?.endsWith(":*")) {
    words[words.length - 1] = last.slice(0, -2);
    prefix = true;
  }
  const first = words[0];
  if (first === undefined || first === "") return undefined;
  return { words, prefix, firstBase: path.posix.basename(first), tokens: scriptTokens(words.join(" ")) };
}

/** Does one plain command match? Allow compares the first word exactly; deny and ask by basename too. */
export function commandMatches(spec: CommandSpec, command: readonly string[], mode: RuleMode): boolean {
  const words = spec.words;
  if (words === undefined) return true;
  if (mode !== "allow" && runsNestedScript(spec, command)) return true;
  if (spec.prefix ? command.length < words.length : command.length !== words.length) return false;
  const first = command[0] ?? "";
  if (first !== words[0] && (mode === "allow" || path.posix.basename(first) !== spec.firstBase)) return false;
  for (let i = 1; i < words.length; i++) if (command[i] !== words[i]) return false;
  return true;
}

/**
 * A script the parser could not split (deny and ask only: it never matches an allow). We cannot
 * tell where its commands start, so we over-approximate: the rule fires when its words occur
 * consecutively anywhere in the script's tokens (first word by basename, `git status` read as
 * `git status:*`). Without the text we cannot tell at all, and fire.
 */
export function scriptMatches(spec: CommandSpec, script: string | undefined): boolean {
  if (spec.words === undefined || script === undefined) return true;
  const tokens = scriptTokens(script);
  const want = spec.tokens;
  const firstBase = path.posix.basename(want[0] ?? "");
  for (let i = 0; i + want.length <= tokens.length; i++) {
    if (path.posix.basename(tokens[i] ?? "") !== firstBase) continue;
    let k = 1;
    while (k < want.length && tokens[i + k] === want[k]) k++;
    if (k === want.length) return true;
  }
  return false;
}

/**
 * Words of a script without regard to quoting: quotes and backslashes are dropped and every
 * shell metacharacter separates, so a command hidden in a quoted `bash -c '...'`, a `$(...)`
 * or after a redirection still shows its words.
 */
function scriptTokens(script: string): string[] {
  return script
    .replace(/["'\\]/g, "")
    .split(/[\s;&|()<>{}`$=]+/)
    .filter((token) => token !== "");
}

const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "su"]);
const SCRIPT_FLAG = /^-[A-Za-z]*c[A-Za-z]*$/;

/**
 * `bash -c 'rm -rf x'`, `sudo sh -c '...'`, `su -c '...'`: a plain command that hands a script
 * to a shell. Deny and ask rules judge that script like an unparsable one, or wrapping a command
 * in `bash -c` would slip past them.
 */
function runsNestedScript(spec: CommandSpec, command: readonly string[]): boolean {
  let shell = false;
  for (let i = 0; i < command.length - 1; i++) {
    const word = command[i] ?? "";
    if (SHELLS.has(word) || (word.includes("/") && SHELLS.has(path.posix.basename(word)))) shell = true;
    else if (shell && SCRIPT_FLAG.test(word) && scriptMatches(spec, command[i + 1])) return true;
  }
  return false;
}
