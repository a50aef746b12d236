import path from "node:path";
import { parse } from "shell-quote";
import type { JudgedCommand } from "./reduceCommands.js";
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
}

const ANY: CommandSpec = { words: undefined, prefix: true, firstBase: "" };

/**
 * Reads a specifier as plain words: quotes are honoured (`echo "a b"` is two words), and
 * anything but plain words (operators, redirections, variables, comments) gives undefined. A
 * rule is the user's text, not the model's, so a quote-aware split is enough here; scripts are
 * read with the bash grammar.
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
  return { words, prefix, firstBase: path.posix.basename(first) };
}

/**
 * Does one command match? Allow compares the first word exactly; deny and ask by basename too.
 * A word known only at run time may be anything: allow reads it as unmatched, deny and ask as
 * matched (and, being possibly empty or many words, it ends the comparison).
 */
export function commandMatches(spec: CommandSpec, command: JudgedCommand, mode: RuleMode): boolean {
  const words = spec.words;
  if (words === undefined) return true;
  const allow = mode === "allow";
  const { dynamicAt } = command;
  const got = command.words;
  for (let i = 0; i < words.length; i++) {
    if (i >= dynamicAt) return !allow;
    if (i >= got.length) return false;
    if (got[i] === words[i]) continue;
    if (i === 0 && !allow && command.base === spec.firstBase) continue;
    return false;
  }
  if (spec.prefix) return true;
  return got.length === words.length ? dynamicAt >= words.length || !allow : !allow && dynamicAt <= words.length;
}

/**
 * A text whose program cannot be known (deny and ask only: it never matches an allow): the
 * rule fires when its program word occurs anywhere in it, quotes and backslashes aside.
 */
export function opaqueMatches(spec: CommandSpec, text: string): boolean {
  // No text at all (a plugin's unparsable subject without a summary): fail closed.
  if (spec.words === undefined || text === "") return true;
  return text
    .replace(/["'\\]/g, "")
    .split(/[\s;&|()<>{}`$=]+/)
    .some((token) => token !== "" && path.posix.basename(token) === spec.firstBase);
}
