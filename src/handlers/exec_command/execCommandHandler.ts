import {
  FunctionCallError,
  texts,
  type ExecEnvironment,
  type ToolCall,
  type ToolOutput,
} from "../../protocol/index.js";
import type { FileReadLedger, PolicySubject, ToolHandler, ToolInvocation } from "../../registry/index.js";
import { environmentOf, filesOf, sandboxStopped, type SandboxEscalation } from "../../sandbox/index.js";
import { boundCaptured, emitEvent } from "../../turn/index.js";
import { now } from "../../util/index.js";
import {
  applyPatchCommandSubject,
  interceptApplyPatch,
  hardenKnownSafeGit,
  HARDENED_GIT_ENV,
  isKnownSafeCommand,
  knownSafeOrLoad,
  MENTIONS_APPLY_PATCH,
  resolveWorkdirIn,
  userShell,
} from "../shell/index.js";
import { chunkBudget, clampYield, formatUnifiedExec } from "./format.js";
import { quietMsOf, type YieldMode } from "./idleYield.js";
import type { ExecSessionManager } from "./manager.js";
import { readStreaming } from "./streaming.js";
import { requestedEscalation, type EscalationArgs } from "./escalation.js";

/** Arguments of an `exec_command` call (validated against `EXEC_COMMAND_SPEC`). */
export interface ExecCommandArgs extends EscalationArgs {
  cmd: string;
  workdir?: string;
  shell?: string;
  login?: boolean;
  tty?: boolean;
  yield_time_ms?: number;
  max_output_tokens?: number;
  /** Offered with the router option `execIdleYield`. */
  yield?: YieldMode;
}

const DEFAULT_YIELD_MS = 10_000;

/** The argv an `exec_command` runs. */
export const execArgv = (args: ExecCommandArgs): string[] => [
  args.shell ?? userShell(),
  args.login === false ? "-c" : "-lc",
  args.cmd,
];

/** The policy subject of an `exec_command` (also what a `write_stdin` to a non-shell session is judged as). */
export function execCommandSubject(args: ExecCommandArgs): PolicySubject {
  const argv = execArgv(args);
  const patch = applyPatchCommandSubject(argv, args.workdir);
  if (patch !== undefined) return patch;
  return args.shell === undefined
    ? { scripts: [args.cmd], summary: args.cmd }
    : { commands: [argv], summary: args.cmd };
}

/**
 * Codex `exec_command`: runs `cmd` with the user's shell in the turn's environment and returns
 * what it printed within `yield_time_ms`; a process still running then is kept as a session for
 * `write_stdin`. Aborted before it returned, the process dies with the call.
 */
export class ExecCommandHandler implements ToolHandler {
  readonly kind = "function" as const;

  constructor(
    private readonly sessions: ExecSessionManager,
    /** The session's ledger: files a patch run as a command writes count as seen. */
    private readonly fileReads?: FileReadLedger,
  ) {}

  /** apply_patch run as a command is exclusive, as the apply_patch tool is. */
  supportsParallel(call: ToolCall): boolean {
    if (call.payload.kind !== "function" || !MENTIONS_APPLY_PATCH.test(call.payload.arguments)) return true;
    try {
      return applyPatchCommandSubject(execArgv(JSON.parse(call.payload.arguments) as ExecCommandArgs)) === undefined;
    } catch {
      return false;
    }
  }

  /**
   * Mutating unless the command is known to be safe (Codex); with a permission engine, a script
   * the verdict needs the bash parser for waits for it (see ExecHandler.isMutating).
   */
  isMutating(inv: ToolInvocation): boolean | Promise<boolean> {
    const argv = execArgv(inv.args as ExecCommandArgs);
    if (!inv.turn.permissions) return !isKnownSafeCommand(argv);
    const safe = knownSafeOrLoad(argv);
    return typeof safe === "boolean" ? !safe : safe.then((s) => !s);
  }

  /**
   * What it runs: `cmd` as a script (the user's shell that runs it is the tool's, not the
   * model's); with a `shell` of the model's choosing, the whole argv. For apply_patch run as
   * a command, the apply_patch tool's subject.
   */
  policySubject(inv: ToolInvocation): PolicySubject {
    return execCommandSubject(inv.args as ExecCommandArgs);
  }

  async handle(inv: ToolInvocation): Promise<ToolOutput> {
    const args = inv.args as ExecCommandArgs;
    const started = now();
    const cwd = await resolveWorkdirIn(filesOf(inv.turn), inv.turn.cwd, args.workdir);
    const patched = await interceptApplyPatch(inv, execArgv(args), cwd, this.fileReads);
    if (patched) {
      // Applied as the apply_patch tool would; Codex 0.171 answers with the tool's answer under
      // the command's wall time, and a patch refused before it ran with the refusal alone.
      const body = patched.refused
        ? patched.answer
        : `Wall time: ${((now() - started) / 1000).toFixed(4)} seconds\nOutput:\n${patched.answer}`;
      return { kind: "function", body, success: patched.success, bounded: true };
    }
    const env = environmentOf(inv.turn);
    const requested = await requestedEscalation(inv, args, env);
    if (requested === "refused") throw FunctionCallError.respondToModel(texts.escalationNotApproved);
    let run = await this.run(inv, env, cwd, requested === "sandboxed");
    const { escalation } = run;
    if (escalation && inv.escalate && (await inv.escalate({ reason: escalation.reason, summary: args.cmd })))
      run = await this.run(inv, env, cwd, escalation.grant());
    return run.output;
  }

  private async run(
    inv: ToolInvocation,
    env: ExecEnvironment,
    cwd: string,
    sandboxed: boolean,
  ): Promise<{ output: ToolOutput; escalation: SandboxEscalation | undefined }> {
    const { turn, callId, toolName } = inv;
    const args = inv.args as ExecCommandArgs;
    const argv = execArgv(args);
    const tty = args.tty === true;
    const started = now();
    emitEvent(turn, { type: "exec_command_begin", callId, toolName, command: argv, cwd });
    let exitCode: number | null = null;
    let output: string | undefined;
    try {
      const safe = hardenKnownSafeGit(argv);
      const run = safe instanceof Promise ? await safe : safe;
      const proc = await env.spawn({
        argv: run.argv,
        cwd,
        stdin: tty ? "pipe" : "ignore",
        tty,
        sandboxed,
        ...(run.hardened && { env: { ...HARDENED_GIT_ENV } }),
      });
      const session = this.sessions.add(proc, { tty, launched: args });
      let chunk;
      try {
        chunk = await session.serialize(() =>
          readStreaming(session, inv, () =>
            session.read(
              clampYield(args.yield_time_ms ?? DEFAULT_YIELD_MS),
              inv.signal,
              chunkBudget(args.max_output_tokens, turn.truncationPolicy),
              quietMsOf(args),
            ),
          ),
        );
      } catch (err) {
        // Only a call that returned a session id leaves its process running.
        await this.sessions.kill(session);
        throw err;
      }
      const exited = chunk.exitCode !== undefined;
      if (exited) this.sessions.remove(session);
      exitCode = chunk.exitCode ?? null;
      output = boundCaptured(
        "",
        chunk.output,
        turn.truncationPolicy,
        chunkBudget(args.max_output_tokens, turn.truncationPolicy),
      ).text;
      const body = formatUnifiedExec(chunk, {
        wallMs: now() - started,
        sessionId: exited ? undefined : session.id,
        maxOutputTokens: args.max_output_tokens,
        policy: turn.truncationPolicy,
      });
      return {
        output: { kind: "function", body, success: !exited || chunk.exitCode === 0, bounded: true },
        escalation: sandboxStopped(env, { sandboxed, exitCode: chunk.exitCode }, chunk.output),
      };
    } finally {
      emitEvent(turn, {
        type: "exec_command_end",
        callId,
        toolName,
        exitCode,
        durationMs: now() - started,
        timedOut: false,
        aborted: inv.signal.aborted,
        ...(output !== undefined && { output }),
      });
    }
  }
}
