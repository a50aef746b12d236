import path from "node:path";
import { quote } from "shell-quote";
import type { PolicyCall } from "./types.js";
import { viewPath } from "./paths.js";
import { PermissionRule } from "./rules.js";
import { judgedCommands } from "./subjectCommands.js";

/** A second word worth keeping in a suggestion: a subcommand (`commit`), not a flag, a path or a file name. */
const SUBCOMMAND = /^[a-z][a-z0-9-]*$/;
/** What picomatch reads as glob syntax, and the backslash that escapes it. */
const GLOB_SYNTAX = /[\\*?[\]{}()!+@]/g;

/**
 * What "allow_session" would remember when the handler suggests nothing: never broader than the
 * call's own command prefix or directory, and nothing when no such rule exists (an unparsable
 * script, the cwd itself), so that approving for the session approves only this call.
 */
export function defaultSuggestions(call: PolicyCall): string[] {
  const subject = call.subject;
  let specifier: string | undefined;
  if (subject?.commands !== undefined || subject?.scripts !== undefined) {
    // The first command that runs (not its wrapper); nothing when part of it cannot be known.
    const judged = judgedCommands(subject);
    if (judged.opaque.length > 0) return [];
    const first = judged.commands.find((c) => !c.wrapper);
    specifier = first && first.dynamicAt > 0 ? commandSpecifier(first.words.slice(0, first.dynamicAt)) : undefined;
    if (specifier === undefined) return [];
  } else if (subject?.paths !== undefined) {
    specifier = pathSpecifier(subject.paths[0], call.cwd);
    if (specifier === undefined) return [];
  }
  const rule = specifier === undefined ? call.toolName : `${call.toolName}(${specifier})`;
  return isValidRule(rule) ? [rule] : [];
}

export function isValidRule(rule: string): boolean {
  try {
    new PermissionRule(rule);
    return true;
  } catch {
    return false;
  }
}

/** `git commit -m x` -> `git commit:*`; `ls -la` -> `ls:*`. Quoted so it reads back as the same words. */
function commandSpecifier(command: readonly string[] | undefined): string | undefined {
  const [first, second] = command ?? [];
  if (first === undefined || first === "") return undefined;
  const head = quote([first]);
  return second !== undefined && SUBCOMMAND.test(second) ? `${head} ${second}:*` : `${head}:*`;
}

/** `src/a/b.ts` -> `src/a/**`; `README.md` -> `./README.md` (anchored: `README.md` alone matches at any depth). */
function pathSpecifier(p: string | undefined, cwd: string): string | undefined {
  if (p === undefined) return undefined;
  const view = viewPath(p, cwd);
  if (view.inside === "") return undefined;
  const target = view.inside ?? view.abs;
  const dir = path.posix.dirname(target);
  if (dir === "." || dir === "/") return view.inside !== undefined ? `./${escapeGlob(target)}` : escapeGlob(target);
  return `${escapeGlob(dir)}/**`;
}

function escapeGlob(p: string): string {
  return p.replace(GLOB_SYNTAX, "\\$&");
}
