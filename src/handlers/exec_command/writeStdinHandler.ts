import { FunctionCallError, texts, type ToolOutput } from "../../protocol/index.js";
import type { PolicySubject, ToolHandler, ToolInvocation } from "../../registry/index.js";
import path from "node:path";
import { bashParserReady, needsBashParser, now, scriptCommands } from "../../util/index.js";
import { isKnownSafeCommand, knownSafeOrLoad, userShell } from "../shell/index.js";
import { execArgv, execCommandSubject, type ExecCommandArgs } from "./execCommandHandler.js";
import { chunkBudget, clampYield, formatUnifiedExec } from "./format.js";
import { quietMsOf, type YieldMode } from "./idleYield.js";
import type { ExecSessionManager } from "./manager.js";
import { readStreaming } from "./streaming.js";

/** Arguments of a `write_stdin` call (validated against `WRITE_STDIN_SPEC`). */
export interface WriteStdinArgs {
  session_id: number;
  chars?: string;
  yield_time_ms?: number;
  max_output_tokens?: number;
  /** Offered with the router option `execIdleYield`. */
  yield?: YieldMode;
}

const DEFAULT_YIELD_MS = 250;
// Codex 0.171: an empty poll waits longer, 5 s by default, between 5 s and 300 s.
const DEFAULT_POLL_MS = 5_000;
const MAX_POLL_MS = 300_000;
const pollWait = (ms: number | undefined): number =>
  Math.min(Math.max(ms ?? DEFAULT_POLL_MS, DEFAULT_POLL_MS), MAX_POLL_MS);
/** Keys a terminal or readline turns into edits (tab completes, backspace erases, escape sequences move). */
// eslint-disable-next-line no-control-regex
const EDITING_KEYS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\t/;
/** Ctrl-C: without a terminal, SIGINT to the session's process group (Codex 0.171). */
const CTRL_C = "\u0003";
/** A line longer than this is judged from its last part only. */
const MAX_TYPED = 64 * 1024;

type Typing =
  | { kind: "nothing" }
  | { kind: "opaque" }
  | { kind: "lines"; script: string }
  | { kind: "program"; launched: ExecCommandArgs };

const SHELL_NAMES = new Set(["sh", "bash", "zsh", "dash", "fish", "ksh", "mksh", "ash", "yash", "rbash"]);

/**
 * Does the session's command end up reading its terminal as a shell? Any shell word without a
 * `-c` after it counts (`bash`, `exec zsh -l`, `cd x && bash`); a command that needs the
 * grammar while it is not loaded counts too: typed lines are then judged as a script, the
 * stricter reading.
 */
function runsShell(launched: ExecCommandArgs): boolean {
  if (!bashParserReady() && needsBashParser(launched.cmd)) return true;
  const commands = scriptCommands(launched.cmd);
  if (commands === undefined) return true;
  return commands.some(({ words }) => {
    const at = words.findIndex((w) => SHELL_NAMES.has(path.posix.basename(w)));
    return at !== -1 && !words.slice(at + 1).some((w) => /^-[A-Za-z]*c[A-Za-z]*$/.test(w));
  });
}

const fail = (message: string): FunctionCallError => FunctionCallError.respondToModel(`write_stdin failed: ${message}`);

/**
 * Codex `write_stdin`: sends `chars` to a session's terminal (empty: just polls) and returns the
 * output it printed since the last read, within `yield_time_ms`. An aborted call leaves the
 * session running.
 */
export class WriteStdinHandler implements ToolHandler {
  readonly kind = "function" as const;

  constructor(private readonly sessions: ExecSessionManager) {}

  /**
   * Typing into a shell runs each completed line: mutating unless those lines are known safe
   * (as `exec_command` of them would be); into any other program, as `exec_command` of the
   * session's command. An empty poll or a line not yet ended runs nothing.
   */
  isMutating(inv: ToolInvocation): boolean | Promise<boolean> {
    const typing = this.typing(inv);
    if (typing.kind === "nothing") return false;
    if (typing.kind === "opaque") return true;
    const argv = typing.kind === "lines" ? [userShell(), "-c", typing.script] : execArgv(typing.launched);
    if (!inv.turn.permissions) return !isKnownSafeCommand(argv);
    const safe = knownSafeOrLoad(argv);
    return typeof safe === "boolean" ? !safe : safe.then((s) => !s);
  }

  /**
   * Judged with the rules of `exec_command` (DESIGN section 11, "Tool families"): the lines a
   * shell session runs as a script, or the command of a session running another program.
   */
  policySubject(inv: ToolInvocation): PolicySubject {
    const { session_id: id, chars = "" } = inv.args as WriteStdinArgs;
    const summary = `write_stdin ${id}: ${JSON.stringify(chars)}`;
    const typing = this.typing(inv);
    switch (typing.kind) {
      case "nothing":
        return { scripts: [], summary, asTool: "exec_command" };
      case "opaque":
        // Control keys edit the line (backspace, completion, history): what runs cannot be read.
        return { commands: null, summary, asTool: "exec_command" };
      case "lines":
        return { scripts: [typing.script], summary, asTool: "exec_command" };
      case "program":
        return { ...execCommandSubject(typing.launched), summary, asTool: "exec_command" };
    }
  }

  /** What this call's typing makes run. */
  private typing(inv: ToolInvocation): Typing {
    const { session_id: id, chars = "" } = inv.args as WriteStdinArgs;
    const session = this.sessions.get(id);
    // An unknown session fails in `handle`; nothing is typed anywhere.
    // Ctrl-C to a session without a terminal only interrupts what it runs: nothing is typed.
    if (session === undefined || chars === "" || (chars === CTRL_C && !session.tty)) return { kind: "nothing" };
    const launched = session.launched;
    if (launched !== undefined && !runsShell(launched)) return { kind: "program", launched };
    if (EDITING_KEYS.test(chars)) return { kind: "opaque" };
    const text = session.typed + chars;
    const end = Math.max(text.lastIndexOf("\n"), text.lastIndexOf("\r"));
    if (end === -1) return { kind: "nothing" };
    return { kind: "lines", script: text.slice(0, end).replace(/\r/g, "\n") };
  }

  /**
   * No such session. In a turn resumed from its journal, one this host never had was the dead
   * host's: its process died with it (DESIGN section 17), so the call is answered `interrupted`.
   */
  private unknown(inv: ToolInvocation, id: number): FunctionCallError {
    if (inv.turn.callJournal?.resumed === true && this.sessions.notIssuedHere(id))
      return FunctionCallError.respondToModel(texts.interrupted(`exec_command session ${id}`));
    return fail(`Unknown process id ${id}`);
  }

  async handle(inv: ToolInvocation): Promise<ToolOutput> {
    const {
      session_id: id,
      chars = "",
      yield_time_ms: yieldMs,
      max_output_tokens: maxOutputTokens,
    } = inv.args as WriteStdinArgs;
    const session = this.sessions.get(id);
    if (!session) throw this.unknown(inv, id);
    const started = now();
    return session.serialize(async () => {
      const interrupted = chars === CTRL_C && !session.tty && session.interrupt();
      if (interrupted) {
        inv.turn.logger.debug({ sessionId: id }, "Ctrl-C sent SIGINT to the session's process group");
      } else if (chars !== "" && session.write(chars)) {
        const text = session.typed + chars;
        session.typed = text.slice(Math.max(text.lastIndexOf("\n"), text.lastIndexOf("\r")) + 1).slice(-MAX_TYPED);
      } else if (chars !== "") {
        throw fail(
          session.tty
            ? `process ${id} has exited`
            : "stdin is closed for this session; rerun exec_command with tty=true to keep stdin open",
        );
      }
      const wait = chars === "" ? pollWait(yieldMs) : clampYield(yieldMs ?? DEFAULT_YIELD_MS);
      const budget = chunkBudget(maxOutputTokens, inv.turn.truncationPolicy);
      const chunk = await readStreaming(session, inv, () =>
        session.read(wait, inv.signal, budget, quietMsOf(inv.args as WriteStdinArgs)),
      );
      if (chunk.exitCode !== undefined) this.sessions.remove(session);
      const body = formatUnifiedExec(chunk, {
        wallMs: now() - started,
        sessionId: id,
        maxOutputTokens,
        policy: inv.turn.truncationPolicy,
      });
      return { kind: "function", body, success: chunk.exitCode === undefined || chunk.exitCode === 0, bounded: true };
    });
  }
}
