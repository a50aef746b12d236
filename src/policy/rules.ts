import type { PolicyCall } from "./types.js";
import { commandMatches, compileCommandSpec, opaqueMatches, type CommandSpec } from "./commandSpec.js";
import { SHELL_FAMILY, sameShellFamily } from "./families.js";
import { compilePathSpec, pathMatches, type PathSpec } from "./pathSpec.js";
import { claudeFamily } from "./claudeTools.js";
import { CallPaths } from "./paths.js";
import { judgedCommands } from "./subjectCommands.js";
import type { JudgedCommands } from "./reduceCommands.js";

/**
 * Which list a rule sits in. Allow rules must cover the whole call (every command, every path)
 * and read unclear calls as unmatched; deny and ask rules fire on any part and read unclear
 * calls as matched: each errs towards asking.
 */
export type RuleMode = "allow" | "deny" | "ask";

const TOOL_PART = /^[A-Za-z0-9_*-]+$/;

/**
 * A permission rule, `Tool` or `Tool(specifier)`, parsed and compiled once. The specifier is
 * read three ways, chosen per call by what the handler describes (`PolicySubject`): command
 * words for shell subjects, a glob for file subjects, the handler's `matchRule` otherwise.
 */
export class PermissionRule {
  /** As written: what verdicts and texts quote. */
  readonly rule: string;
  readonly tool: string;
  readonly specifier: string | undefined;
  readonly #toolPattern: RegExp | undefined;
  /** Claude Code's `Read`, `Edit`, ...: the tools of ours the name covers. */
  readonly #family: readonly string[] | undefined;
  readonly #command: CommandSpec | undefined;
  readonly #path: PathSpec | undefined;

  /** Throws `invalid permission rule "X": <why>`. */
  constructor(rule: string) {
    if (typeof rule !== "string") throw new Error(`invalid permission rule ${String(rule)}: a rule is a string`);
    const fail = (why: string): never => {
      throw new Error(`invalid permission rule "${rule}": ${why}`);
    };
    const text = rule.trim();
    const open = text.indexOf("(");
    const tool = open === -1 ? text : text.slice(0, open);
    if (tool.includes(")")) fail("unbalanced parentheses");
    if (tool === "") fail("the tool name is empty");
    if (!TOOL_PART.test(tool)) fail(`the tool name "${tool}" may only use letters, digits, "_", "-" and "*"`);
    let specifier: string | undefined;
    if (open !== -1) {
      const close = closingParenthesis(text, open);
      if (close === -1) fail("unbalanced parentheses");
      if (close !== text.length - 1) {
        fail(/[()]/.test(text.slice(close + 1)) ? "unbalanced parentheses" : "text after the closing parenthesis");
      }
      specifier = text.slice(open + 1, close).trim();
      if (specifier === "") fail("the specifier in parentheses is empty");
    }
    this.rule = rule;
    this.tool = tool;
    this.specifier = specifier;
    this.#toolPattern = tool.includes("*")
      ? new RegExp(`^${tool.split("*").join(".*")}$`) // the tool part has no other regex metacharacter
      : undefined;
    this.#family = claudeFamily(tool);
    if (specifier !== undefined) {
      this.#command = compileCommandSpec(specifier);
      if (this.#command === undefined && SHELL_FAMILY.has(tool)) {
        fail("a shell rule names one command in plain words (no operators, redirections or variables)");
      }
      this.#path = SHELL_FAMILY.has(tool) ? undefined : compilePathSpec(specifier);
    }
  }

  /**
   * Exact name, `*` over names, a shell tool names its whole family (`families.ts`), and a
   * Claude Code name (`Read`, `Edit`, ...) names its family of our tools.
   */
  matchesTool(toolName: string): boolean {
    if (this.#toolPattern !== undefined) return this.#toolPattern.test(toolName);
    if (toolName === this.tool || sameShellFamily(this.tool, toolName)) return true;
    return this.#family?.includes(toolName) === true;
  }

  /** Does this rule judge paths (a specifier, read as a glob for file tools)? */
  get judgesPaths(): boolean {
    return this.#path !== undefined;
  }

  /** A shell rule with a specifier (the kind an opaque script is asked under). */
  get judgesCommands(): boolean {
    return this.#command !== undefined && (SHELL_FAMILY.has(this.tool) || this.#toolPattern !== undefined);
  }

  /**
   * Does this rule, sitting in the `mode` list, decide `call`? `paths` lets the engine share one
   * normalization of the call's paths between rules.
   */
  matches(call: PolicyCall, mode: RuleMode, paths?: CallPaths, commands?: JudgedCommands): boolean {
    if (!this.matchesTool(call.toolName)) return false;
    const specifier = this.specifier;
    if (specifier === undefined) return true;
    const subject = call.subject;
    if (subject?.commands !== undefined || subject?.scripts !== undefined) {
      return this.#matchesCommands(commands ?? judgedCommands(subject), mode);
    }
    if (subject?.paths !== undefined) return this.#matchesPaths(paths ?? new CallPaths(call), mode);
    return matchesPlugin(call.matchRule, specifier, mode);
  }

  #matchesCommands(judged: JudgedCommands, mode: RuleMode): boolean {
    const spec = this.#command;
    if (spec === undefined) return false;
    if (mode === "allow") {
      // Every command that runs must match (wrappers aside: they are judged by what they run);
      // what cannot be known never does.
      if (judged.opaque.length > 0) return false;
      let any = false;
      for (const command of judged.commands) {
        if (command.wrapper) continue;
        if (!commandMatches(spec, command, mode)) return false;
        any = true;
      }
      return any;
    }
    // Deny and ask: any command, wrappers included, or any opaque text naming the program.
    for (const command of judged.commands) if (commandMatches(spec, command, mode)) return true;
    return judged.opaque.some((text) => opaqueMatches(spec, text));
  }

  #matchesPaths(paths: CallPaths, mode: RuleMode): boolean {
    const spec = this.#path;
    const views = paths.views();
    if (spec === undefined || views.length === 0) return false;
    const all = mode === "allow"; // as for commands
    for (const view of views) if (pathMatches(spec, view, mode) !== all) return !all;
    return all;
  }
}

/**
 * Plugin tools judge their own specifiers. A `matchRule` that throws has not shown the call is
 * covered: it matches no allow and fires every deny and ask.
 */
function matchesPlugin(
  matchRule: ((specifier: string) => boolean) | undefined,
  specifier: string,
  mode: RuleMode,
): boolean {
  if (matchRule === undefined) return false;
  try {
    return matchRule(specifier);
  } catch {
    return mode !== "allow";
  }
}

/** Index of the `)` closing the `(` at `open`, or -1; a backslash escapes a parenthesis. */
function closingParenthesis(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i++;
    else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i;
  }
  return -1;
}
