import { bashParserReady, plainScriptCommands, scriptCommands, type ScriptCommand } from "../util/index.js";
import { gitCanonical } from "./gitOptions.js";
import { SHELLS, WRAPPERS } from "./wrappers.js";

/** One command as rules judge it. */
export interface JudgedCommand {
  readonly words: readonly string[];
  /** The first word's basename (`/usr/bin/rm` -> `rm`), what deny and ask rules compare. */
  readonly base: string;
  /** Index of the first word known only at run time: rules treat it and what follows as unknown. */
  readonly dynamicAt: number;
  /**
   * It runs another command (`env`, `nice`, `bash -c`, `xargs`, git's global options): deny and
   * ask rules judge it, allow rules only what it runs.
   */
  readonly wrapper: boolean;
}

/** Everything a shell call runs, reduced to what runs (DESIGN section 11, "Rules judge what runs"). */
export interface JudgedCommands {
  readonly commands: readonly JudgedCommand[];
  /**
   * Texts whose program cannot be known (`eval`, `$CMD`, a glob in program position, a parse
   * error, a shell reading piped input): they never match an allow rule and fire a deny or ask
   * rule whose program word appears anywhere in them.
   */
  readonly opaque: readonly string[];
  /** Something runs through `sudo`, `doas`, `su` or `pkexec`: never allowed by the mode alone. */
  readonly elevated: boolean;
  /** A script went unjudged (counted opaque) because the bash parser was not loaded yet. */
  readonly needsParser: boolean;
}

/** What an opaque command is judged by: its script, or (an argv) its words. */
function textOf(cmd: ScriptCommand): string {
  return cmd.context === "" ? cmd.words.join(" ") : cmd.context;
}

/** `path.posix.basename` for a program word, without its cost on the hot path. */
function basename(word: string): string {
  const slash = word.lastIndexOf("/");
  return slash === -1 ? word : word.slice(slash + 1);
}

/** A file naming the process's own input: a shell or `source` given it runs what is fed in. */
const STDIN_FILE = /^\/(dev\/(stdin|fd\/\d+)|proc\/(self|thread-self|\d+)\/fd\/\d+)$/;

/** Nesting past this (`bash -c "bash -c ..."`) is opaque. */
const MAX_DEPTH = 12;

class Reducer implements JudgedCommands {
  readonly commands: JudgedCommand[] = [];
  readonly opaque: string[] = [];
  elevated = false;
  needsParser = false;

  /** An argv as written; its text is made only if it turns out opaque. */
  argv(argv: readonly string[]): void {
    this.command({ words: argv as string[], dynamicAt: argv.length, context: "" }, 0);
  }

  script(script: string, depth: number): void {
    if (depth > MAX_DEPTH) {
      this.opaque.push(script);
      return;
    }
    // Plain words need no grammar; anything else waits for the parser to load (`prepareSubject`).
    const commands = plainScriptCommands(script) ?? (bashParserReady() ? scriptCommands(script) : null);
    if (commands === null) {
      this.needsParser = true;
      this.opaque.push(script);
      return;
    }
    if (commands === undefined) this.opaque.push(script);
    else for (const command of commands) this.command(command, depth + 1);
    // The grammar splits a word at a backslash-newline that bash joins (`r\<newline>m`): judge
    // the joined text too (outside single quotes the join is what bash runs).
    if (script.includes("\\\n")) this.script(script.replace(/\\\n/g, ""), depth + 1);
  }

  private push(words: readonly string[], dynamicAt: number, wrapper: boolean): void {
    this.commands.push({
      words,
      base: basename(words[0] ?? ""),
      dynamicAt: Math.min(dynamicAt, words.length),
      wrapper,
    });
  }

  /** One simple command: itself, and whatever it makes run. */
  command(cmd: ScriptCommand, depth: number): void {
    const { words, dynamicAt, context } = cmd;
    if (depth > MAX_DEPTH || dynamicAt === 0 || words.length === 0) {
      this.opaque.push(textOf(cmd));
      return;
    }
    const name = basename(words[0] ?? "");
    const wrap = WRAPPERS.get(name);
    if (wrap !== undefined) {
      const inner = wrap(words);
      if (inner.elevated) this.elevated = true;
      // sudo and friends are judged as themselves by allow rules too: approving `rm` is not approving `sudo rm`.
      this.push(words, dynamicAt, inner.elevated !== true);
      if (inner.opaque === true || (inner.start !== undefined && inner.start > dynamicAt)) {
        this.opaque.push(textOf(cmd));
        return;
      }
      if (inner.script !== undefined) this.script(inner.script, depth + 1);
      if (inner.shellWhenEmpty === true && (inner.start ?? words.length) >= words.length) this.fedScript(cmd, depth);
      if (inner.start !== undefined && inner.start < words.length) {
        const rest = words.slice(inner.start);
        const tail = inner.appends === true ? [...rest, "{input}"] : rest;
        const innerDynamic = Math.min(dynamicAt - inner.start, inner.appends === true ? rest.length : tail.length);
        this.command({ words: tail, dynamicAt: innerDynamic, context }, depth + 1);
      }
      return;
    }
    if (SHELLS.has(name)) {
      this.shell(cmd, depth);
      return;
    }
    if (name === "eval") {
      this.push(words, dynamicAt, true);
      this.opaque.push(textOf(cmd));
      return;
    }
    if (name === "source" || name === ".") {
      this.source(cmd, depth);
      return;
    }
    if (name === "git") {
      const canonical = gitCanonical(words, dynamicAt);
      if (canonical?.opaque === true) {
        this.push(words, dynamicAt, true);
        this.opaque.push(textOf(cmd));
        return;
      }
      if (canonical !== undefined) {
        this.push(words, dynamicAt, true);
        this.push(canonical.words, canonical.dynamicAt, false);
        return;
      }
    }
    if (name === "find") {
      this.find(cmd, depth);
      return;
    }
    this.push(words, dynamicAt, false);
  }

  /** `bash -c script` (the script, and the shell itself); `bash` reading a heredoc or a pipe. */
  private shell(cmd: ScriptCommand, depth: number): void {
    const { words, dynamicAt } = cmd;
    let operand: number | undefined;
    let script: number | undefined;
    for (let i = 1; i < words.length; i++) {
      const word = words[i] ?? "";
      if (i >= dynamicAt) {
        this.push(words, dynamicAt, false);
        this.opaque.push(textOf(cmd));
        return;
      }
      if (word === "--" || word === "-") {
        operand = i + 1;
        break;
      }
      if (/^-[A-Za-z]*c[A-Za-z]*$/.test(word)) {
        // `bash -c -- 'rm V'`: the `--` ends the options, the script follows.
        script = words[i + 1] === "--" ? i + 2 : i + 1;
        break;
      }
      if (
        word === "-o" ||
        word === "+o" ||
        word === "-O" ||
        word === "+O" ||
        word === "--rcfile" ||
        word === "--init-file"
      ) {
        i++;
        continue;
      }
      if (word.startsWith("-") || word.startsWith("+")) continue;
      operand = i;
      break;
    }
    if (script !== undefined) {
      this.push(words, dynamicAt, true);
      if (script >= dynamicAt) this.opaque.push(textOf(cmd));
      else if (script < words.length) this.script(words[script] ?? "", depth + 1);
      return;
    }
    // A script file as operand: the file is not judged, the shell is, as any program; so is
    // an interactive shell (what is typed into it is judged by write_stdin).
    const readsStdin =
      (operand === undefined || operand >= words.length || STDIN_FILE.test(words[operand] ?? "")) &&
      cmd.stdin !== undefined;
    this.push(words, dynamicAt, readsStdin);
    if (readsStdin) this.fedScript(cmd, depth);
  }

  /** What is fed to a command that runs its input as a script: a heredoc's text, or opaque. */
  private fedScript(cmd: ScriptCommand, depth: number): void {
    if (typeof cmd.stdin === "string") this.script(cmd.stdin, depth + 1);
    else if (cmd.stdin === null) this.opaque.push(textOf(cmd));
  }

  /**
   * `source f` / `. f`: the file is not judged (as `bash f.sh`), but a file known only at run
   * time (`. <(echo rm V)`) is opaque and the process's own input runs what is fed in.
   */
  private source(cmd: ScriptCommand, depth: number): void {
    const { words, dynamicAt } = cmd;
    const file = words[1] === "--" ? 2 : 1;
    if (file >= dynamicAt) {
      this.push(words, dynamicAt, true);
      this.opaque.push(textOf(cmd));
      return;
    }
    const fed = STDIN_FILE.test(words[file] ?? "");
    this.push(words, dynamicAt, fed);
    if (fed) this.fedScript(cmd, depth);
  }

  /** `find` runs; so do its `-exec`/`-execdir`/`-ok`/`-okdir` commands; `-delete` is judged as `rm`. */
  private find(cmd: ScriptCommand, depth: number): void {
    const { words, dynamicAt, context } = cmd;
    this.push(words, dynamicAt, false);
    // An expansion could be any action.
    if (dynamicAt < words.length) this.opaque.push(textOf(cmd));
    for (let i = 1; i < words.length; i++) {
      const word = words[i];
      if (word === "-delete") this.push(["rm", "{found}"], 1, false);
      if (word === "-exec" || word === "-execdir" || word === "-ok" || word === "-okdir") {
        let end = i + 1;
        while (end < words.length && words[end] !== ";" && words[end] !== "+") end++;
        const inner = words.slice(i + 1, end);
        if (inner.length > 0) {
          const innerDynamic = Math.max(0, Math.min(dynamicAt - (i + 1), inner.length));
          this.command({ words: inner, dynamicAt: innerDynamic, context }, depth + 1);
        }
        i = end;
      }
    }
  }
}

/** The argv lists and scripts a call runs, reduced. */
export function reduceCommands(argvs: readonly (readonly string[])[], scripts: readonly string[]): JudgedCommands {
  const reducer = new Reducer();
  for (const argv of argvs) reducer.argv(argv);
  for (const script of scripts) reducer.script(script, 0);
  return reducer;
}
