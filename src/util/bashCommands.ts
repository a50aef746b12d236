import type { Node } from "web-tree-sitter";
import { withBashTree } from "./bashParser.js";

/** One simple command a script runs, wherever it sits (pipeline, list, substitution, body). */
export interface ScriptCommand {
  /** Its words, unquoted and unescaped; a word known only at run time holds its source text. */
  words: string[];
  /** Index of the first word known only at run time (an expansion, a glob): `words.length` when none. */
  dynamicAt: number;
  /**
   * What it reads on stdin besides the terminal: a heredoc's or here-string's text, `null` when
   * that text expands at run time or the input is another command's output or a file.
   */
  stdin?: string | null;
  /**
   * The whole script it sits in: what an opaque command is judged by (`X=rm; $X V` names `rm`
   * only outside the command).
   */
  context: string;
}

/** Words the fast path reads without the grammar: no quoting, expansion, glob, comment or redirection. */
const PLAIN_WORD = /^[A-Za-z0-9_./:,+@%=-]+$/;
const OPERATORS = new Set(["&&", "||", "|", ";"]);
/** Reserved words that change what follows them when they start a command. */
const RESERVED = new Set([
  "if",
  "then",
  "else",
  "elif",
  "fi",
  "case",
  "esac",
  "for",
  "select",
  "while",
  "until",
  "do",
  "done",
  "function",
  "in",
  "time",
  "coproc",
]);

/**
 * A script of plain words joined by `&& || | ;` (the common `git status`, `ls -la | wc -l`),
 * split without the grammar: what bash would do with it is certain, so the parser need not
 * load. Undefined for anything else.
 */
function plainScript(script: string): { words: string[]; piped: boolean }[] | undefined {
  const tokens = script.split(/[ \t]+/).filter((t) => t !== "");
  const commands: { words: string[]; piped: boolean }[] = [];
  let current: string[] = [];
  let piped = false;
  for (const token of tokens) {
    if (OPERATORS.has(token)) {
      if (current.length === 0) return undefined;
      commands.push({ words: current, piped });
      piped = token === "|";
      current = [];
    } else if (PLAIN_WORD.test(token) && !(current.length === 0 && RESERVED.has(token))) {
      current.push(token);
    } else {
      return undefined;
    }
  }
  if (current.length === 0) return undefined;
  commands.push({ words: current, piped });
  return commands;
}

/** Does judging `script` need the grammar (it is not a plain-words script)? */
export function needsBashParser(script: string): boolean {
  return plainScript(script) === undefined;
}

/** `scriptCommands` of a plain-words script, without the grammar; undefined for any other script. */
export function plainScriptCommands(script: string): ScriptCommand[] | undefined {
  const plain = plainScript(script);
  if (plain === undefined) return undefined;
  const out: ScriptCommand[] = [];
  for (const { words, piped } of plain) {
    const run = words.slice(
      Math.max(
        0,
        words.findIndex((w) => !isAssignment(w)),
      ),
    );
    if (run.length === 0 || isAssignment(run[0] ?? "")) continue;
    out.push({ words: run, dynamicAt: run.length, ...(piped && { stdin: null }), context: script });
  }
  return out;
}

/**
 * Every simple command `script` runs, in source order, or undefined when bash could not parse it.
 * Leading `VAR=value` assignments are dropped. Needs the parser loaded unless the script is
 * plain words (`needsBashParser`).
 */
export function scriptCommands(script: string): ScriptCommand[] | undefined {
  const plain = plainScriptCommands(script);
  if (plain !== undefined) return plain;
  return withBashTree(script, (root) => {
    if (root.hasError) return undefined;
    const out: ScriptCommand[] = [];
    visit(root, { context: script, fed: false, stdin: undefined }, out);
    return out;
  });
}

const isAssignment = (word: string): boolean => /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/.test(word);

interface Ctx {
  /** The script's text. */
  context: string;
  /** Reads another command's output (a later pipeline stage) or a file. */
  fed: boolean;
  /** A heredoc or here-string fed to the body of a redirected statement. */
  stdin: string | null | undefined;
}

const REDIRECTS = new Set(["file_redirect", "herestring_redirect", "heredoc_redirect"]);

function visit(node: Node, ctx: Ctx, out: ScriptCommand[]): void {
  switch (node.type) {
    case "command":
      addCommand(node, ctx, out);
      return;
    case "declaration_command":
    case "unset_command": {
      // `export A=$(...)`: the builtin itself, then whatever its values run.
      const keyword = node.child(0)?.type ?? node.type;
      out.push({ words: [keyword], dynamicAt: 1, context: ctx.context });
      break;
    }
    case "pipeline": {
      const stages = children(node);
      stages.forEach((stage, i) => {
        visit(stage, { context: ctx.context, fed: ctx.fed || i > 0, stdin: i > 0 ? null : ctx.stdin }, out);
      });
      return;
    }
    case "redirected_statement": {
      let stdin: string | null | undefined = ctx.stdin;
      let fed = ctx.fed;
      for (const child of children(node)) {
        if (child.type === "heredoc_redirect") stdin = heredocText(child);
        else if (child.type === "herestring_redirect") stdin = hereString(child);
        else if (child.type === "file_redirect" && child.children.some((c) => c?.type === "<")) fed = true;
      }
      const inner: Ctx = { context: ctx.context, fed, stdin };
      for (const child of children(node)) visit(child, child.type === "heredoc_redirect" ? ctx : inner, out);
      return;
    }
  }
  for (const child of children(node)) visit(child, ctx, out);
}

function addCommand(node: Node, ctx: Ctx, out: ScriptCommand[]): void {
  const words: string[] = [];
  let dynamicAt: number | undefined;
  let stdin = ctx.stdin;
  let fed = ctx.fed;
  for (const child of children(node)) {
    if (child.type === "variable_assignment") continue;
    if (REDIRECTS.has(child.type)) {
      if (child.type === "herestring_redirect") stdin = hereString(child);
      else if (child.children.some((c) => c?.type === "<")) fed = true;
      continue;
    }
    const word = child.type === "command_name" ? (child.namedChild(0) ?? child) : child;
    const value = wordValue(word);
    if (value === undefined) dynamicAt ??= words.length;
    words.push(value ?? word.text);
  }
  if (words.length > 0) {
    const command: ScriptCommand = { words, dynamicAt: dynamicAt ?? words.length, context: ctx.context };
    if (stdin !== undefined) command.stdin = stdin;
    else if (fed) command.stdin = null;
    out.push(command);
  }
  // Substitutions in the name, the arguments, the assignments and the redirections run too.
  for (const child of children(node)) visit(child, ctx, out);
}

function children(node: Node): Node[] {
  return node.namedChildren.filter((c): c is Node => c !== null);
}

/** Unquoted glob or brace characters: the word becomes other words (file names) at run time. */
const EXPANDS = /[*?[]|\{[^}]*,[^}]*\}|\{[^}]*\.\.[^}]*\}/;

/**
 * The value bash gives a word, or undefined when it is known only at run time (an expansion,
 * a substitution, a glob or brace expansion).
 */
function wordValue(node: Node): string | undefined {
  switch (node.type) {
    case "word": {
      const text = node.text;
      if (EXPANDS.test(text.replace(/\\./gs, ""))) return undefined;
      return text.replace(/\\\n/g, "").replace(/\\(.)/gs, "$1");
    }
    case "number":
      return node.text;
    case "raw_string":
      return node.text.slice(1, -1);
    case "string":
    case "translated_string": {
      if (children(node).some((c) => c.type !== "string_content")) return undefined;
      const text = node.text;
      const body = text.slice(text.indexOf('"') + 1, -1);
      return body.replace(/\\\n/g, "").replace(/\\([$`"\\])/g, "$1");
    }
    case "ansi_c_string":
      return ansiC(node.text.slice(2, -1));
    case "concatenation": {
      let value = "";
      for (const part of children(node)) {
        const v = wordValue(part);
        if (v === undefined) return undefined;
        value += v;
      }
      return value;
    }
    default:
      return undefined;
  }
}

const C_ESCAPES: Record<string, string> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/** `$'...'`: bash's backslash escapes (`\x72m` is `rm`). */
function ansiC(body: string): string {
  return body.replace(
    /\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)/gs,
    (all, esc: string) => {
      const head = esc[0] ?? "";
      if (head === "x" || head === "u" || head === "U") return String.fromCodePoint(parseInt(esc.slice(1), 16));
      if (/[0-7]/.test(head)) return String.fromCharCode(parseInt(esc, 8));
      if (head === "c") return String.fromCharCode((esc.charCodeAt(1) || 64) & 31);
      return C_ESCAPES[esc] ?? all;
    },
  );
}

function heredocText(redirect: Node): string | null {
  const body = children(redirect).find((c) => c.type === "heredoc_body");
  if (body === undefined) return "";
  return children(body).every((c) => c.type === "heredoc_content") ? body.text : null;
}

function hereString(redirect: Node): string | null {
  const [value] = children(redirect);
  if (value === undefined) return null;
  const text = wordValue(value);
  return text === undefined ? null : `${text}\n`;
}

/** Named node kinds of a script Codex calls "plain" (`try_parse_word_only_commands_sequence`). */
const CODEX_KINDS = new Set([
  "program",
  "list",
  "pipeline",
  "command",
  "command_name",
  "word",
  "string",
  "string_content",
  "raw_string",
  "number",
  "concatenation",
]);
const CODEX_PUNCTUATION = new Set(["&&", "||", ";", "|", '"', "'"]);

/** A plain command of Codex's parse, with where its words sit in the script. */
export interface PlainCommand {
  words: string[];
  /** End offset (UTF-16) of each word in the script. */
  ends: number[];
}

/**
 * Codex `parse_shell_lc_plain_commands` on a script: its commands when it is only plain words
 * (bare, single- or double-quoted without expansions, concatenated) joined by `&& || ; |` and
 * newlines; undefined for anything else (redirections, substitutions, assignments, subshells,
 * control flow, a parse error). Words are taken as Codex takes them: a bare word's text as
 * written.
 */
export function plainCommands(script: string): PlainCommand[] | undefined {
  const plain = plainScript(script);
  if (plain !== undefined) {
    if (plain.some(({ words }) => isAssignment(words[0] ?? ""))) return undefined;
    const out: PlainCommand[] = [];
    let at = 0;
    for (const { words } of plain) {
      const ends = words.map((w) => {
        at = script.indexOf(w, at) + w.length;
        return at;
      });
      out.push({ words, ends });
    }
    return out;
  }
  return withBashTree(script, (root) => {
    if (root.hasError) return undefined;
    const commands: Node[] = [];
    const stack: Node[] = [root];
    for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
      if (node.isNamed) {
        if (!CODEX_KINDS.has(node.type)) return undefined;
        if (node.type === "command") commands.push(node);
      } else if (!CODEX_PUNCTUATION.has(node.type) && node.type.trim() !== "") {
        return undefined;
      }
      for (const child of node.children) if (child) stack.push(child);
    }
    commands.sort((a, b) => a.startIndex - b.startIndex);
    const out: PlainCommand[] = [];
    for (const command of commands) {
      const parsed = codexPlainCommand(command);
      if (parsed === undefined) return undefined;
      out.push(parsed);
    }
    return out;
  });
}

/** Codex `parse_plain_command_from_node`. */
function codexPlainCommand(command: Node): PlainCommand | undefined {
  const words: string[] = [];
  const ends: number[] = [];
  for (const child of children(command)) {
    let value: string | undefined;
    if (child.type === "command_name") {
      const word = child.namedChild(0);
      value = word?.type === "word" ? word.text : undefined;
    } else {
      value = codexWord(child);
    }
    if (value === undefined) return undefined;
    words.push(value);
    ends.push(child.endIndex);
  }
  return { words, ends };
}

function codexWord(node: Node): string | undefined {
  switch (node.type) {
    case "word":
    case "number":
      return node.text;
    case "string":
      return children(node).every((c) => c.type === "string_content") ? node.text.slice(1, -1) : undefined;
    case "raw_string":
      return node.text.slice(1, -1);
    case "concatenation": {
      let value = "";
      for (const part of children(node)) {
        if (part.type === "concatenation") return undefined;
        const v = codexWord(part);
        if (v === undefined) return undefined;
        value += v;
      }
      return value === "" ? undefined : value;
    }
    default:
      return undefined;
  }
}
