import { texts, type ExecEnvironment, type ToolCall, type ToolOutput, type ToolPayload } from "../../protocol/index.js";
import type { FileReadLedger, PolicySubject, ToolHandler, ToolInvocation } from "../../registry/index.js";
import { boundCaptured, budgetBytes, emitEvent, type SpillStore, type TruncationPolicy } from "../../turn/index.js";
import { environmentOf, runCommand, sandboxStopped, type RunResult } from "../../sandbox/index.js";
import { applyPatchFor, parseApplyPatchCommand, type ApplyPatchOutcome } from "../apply_patch/index.js";
import { applyPatchCommandSubject, interceptedApplyPatch } from "./applyPatchCommand.js";
import { resolveWorkdir } from "./exec.js";
import { formatExecOutput, timedOutPrefix } from "./format.js";
import { SpillingCapture } from "./spillCapture.js";
import { HeadTailBuffer } from "./outputBuffer.js";
import { OutputDeltas } from "./outputDeltas.js";
import { commandLine, isKnownSafeCommand, plainCommands } from "./safeCommand.js";
import { now } from "../../util/index.js";

/** Each end of the capture holds at most this much, whatever the truncation budget. */
export const MAX_CAPTURE_SIDE_BYTES = 1024 * 1024;
/** Room for the `Wall time` / `aborted by user` lines, so the whole aborted text stays in budget. */
const ABORTED_HEADER_ROOM_BYTES = 128;

/** One command to run, as the model asked for it. */
export interface ExecRequest {
  argv: string[];
  workdir?: string;
  timeoutMs?: number;
  env?: Record<string, string>;
}

export interface ExecHandlerOptions {
  /** Default timeout when the call gives none (`ToolsConfig.execTimeoutMs`). */
  timeoutMs: number;
  /** SIGTERM -> SIGKILL grace on timeout and abort. */
  killGraceMs?: number;
  /** Strict policy (`ToolsConfig.shellNonSafeExclusive`): a call not known to be safe runs exclusively. */
  nonSafeExclusive?: boolean;
  /** The session's ledger: files a patch run as a command writes count as seen. */
  fileReads?: FileReadLedger;
  /** `ToolsConfig.spillDir`: a cut output is kept whole there. */
  spill?: SpillStore;
}

/**
 * A known-safe command line with no environment of the model's choosing: variables such as
 * `BASH_ENV`, `LD_PRELOAD` or `GIT_EXTERNAL_DIFF` make even `ls` or `git diff` run other code.
 */
function knownSafe(req: ExecRequest): boolean {
  return (req.env === undefined || Object.keys(req.env).length === 0) && isKnownSafeCommand(req.argv);
}

/** A function call's arguments that may name apply_patch (checked before parsing them). */
export const MENTIONS_APPLY_PATCH = /apply_?patch/;

/** Sized so that the capture holds what the policy shows of the head and tail, plus a char. */
export function captureFor(policy: TruncationPolicy): HeadTailBuffer {
  const side = Math.min(MAX_CAPTURE_SIDE_BYTES, Math.ceil(budgetBytes(policy) / 2) + 4);
  return new HeadTailBuffer(side, side);
}

/**
 * What `shell`, `shell_command` and `local_shell` share: run the request in its own process
 * group with bounded capture, stream output events, format the result for the model, and keep
 * each call's capture for its aborted output. Subclasses turn an invocation into a request.
 */
export abstract class ExecHandler<Ctx = unknown> implements ToolHandler<Ctx> {
  readonly kind = "function" as const;
  private readonly captures = new WeakMap<ToolInvocation<Ctx>, HeadTailBuffer>();

  constructor(protected readonly options: ExecHandlerOptions) {
    if (!Number.isFinite(options.timeoutMs) || options.timeoutMs <= 0) {
      throw new RangeError(`execTimeoutMs must be a positive number, got ${String(options.timeoutMs)}`);
    }
  }

  /** The command line a call asks for; `args` are its parsed function arguments. */
  protected abstract request(payload: ToolPayload, args: unknown): ExecRequest;

  /** apply_patch run as a command is exclusive, as the apply_patch tool is. */
  supportsParallel(call: ToolCall): boolean {
    const payload = call.payload;
    const mayPatch = payload.kind !== "function" || MENTIONS_APPLY_PATCH.test(payload.arguments);
    if (!this.options.nonSafeExclusive && !mayPatch) return true;
    // Runs before argument validation: arguments that do not parse or have the wrong shape
    // cannot be shown safe, so the call runs exclusively (it will fail validation anyway).
    try {
      const args: unknown = payload.kind === "function" ? JSON.parse(payload.arguments || "{}") : undefined;
      const req = this.request(payload, args);
      if (!Array.isArray(req.argv) || !req.argv.every((a) => typeof a === "string")) return false;
      if (mayPatch && parseApplyPatchCommand(req.argv) !== undefined) return false;
      return !this.options.nonSafeExclusive || knownSafe(req);
    } catch {
      return false;
    }
  }

  isMutating(inv: ToolInvocation<Ctx>): boolean {
    const req = this.request(inv.payload, inv.args);
    return !knownSafe(req) || parseApplyPatchCommand(req.argv) !== undefined;
  }

  /**
   * The plain commands the call runs, as permission rules see them (DESIGN section 11); for
   * apply_patch run as a command, the apply_patch tool's subject (its paths, judged by
   * apply_patch's rules).
   */
  policySubject(inv: ToolInvocation<Ctx>): PolicySubject {
    const { argv, workdir } = this.request(inv.payload, inv.args);
    return applyPatchCommandSubject(argv, workdir) ?? { commands: plainCommands(argv), summary: commandLine(argv) };
  }

  /** The bounded capture of an invocation's output (its size is what the call holds in memory). */
  captureOf(inv: ToolInvocation<Ctx>): HeadTailBuffer | undefined {
    return this.captures.get(inv);
  }

  /** Codex's exec abort text, with what the command printed before the abort. */
  abortedOutput(inv: ToolInvocation<Ctx> | undefined, elapsedMs: number): string {
    const capture = inv && this.captures.get(inv);
    if (!inv || !capture || capture.totalBytes === 0) return texts.execAborted(elapsedMs, undefined);
    const budget = Math.max(0, budgetBytes(inv.turn.truncationPolicy) - ABORTED_HEADER_ROOM_BYTES);
    return texts.execAborted(elapsedMs, boundCaptured("", capture.snapshot(), { mode: "bytes", limit: budget }).text);
  }

  async handle(inv: ToolInvocation<Ctx>): Promise<ToolOutput> {
    const req = this.request(inv.payload, inv.args);
    const { turn } = inv;
    const env = environmentOf(turn);
    const cwd = await resolveWorkdir(turn.cwd, req.workdir);
    const patch = interceptedApplyPatch(req.argv, cwd);
    if (patch !== undefined) return this.applyPatch(inv, req, patch.patch, patch.cwd);
    let run = await this.run(inv, env, req, cwd, true);
    if (run.escalatable && inv.escalate) {
      const summary = commandLine(req.argv);
      if (await inv.escalate({ reason: texts.escalateCommand, summary }))
        run = await this.run(inv, env, req, cwd, false);
    }
    return run.output;
  }

  /**
   * apply_patch run as a command: applied as the apply_patch tool applies it (the sandbox's
   * writable roots checked before any write, a person asked to write outside them), answered
   * in the command's format, exit code 0 or 1 with apply_patch's text as the output, between
   * the same begin and end events (and an output delta) as a command.
   */
  private async applyPatch(
    inv: ToolInvocation<Ctx>,
    req: ExecRequest,
    patch: string,
    cwd: string,
  ): Promise<ToolOutput> {
    const { turn, callId, toolName } = inv;
    const capture = captureFor(turn.truncationPolicy);
    this.captures.set(inv, capture);
    const started = now();
    const end = (exitCode: number | null, durationMs: number): void => {
      emitEvent(turn, {
        type: "exec_command_end",
        callId,
        toolName,
        exitCode,
        durationMs,
        timedOut: false,
        aborted: false,
      });
    };
    emitEvent(turn, { type: "exec_command_begin", callId, toolName, command: req.argv, cwd });
    let outcome: ApplyPatchOutcome;
    try {
      outcome = await applyPatchFor(inv, patch, cwd, this.options.fileReads);
    } catch (err) {
      end(null, now() - started); // the begin event pairs with an end, as for a command that could not start
      throw err;
    }
    const durationMs = now() - started;
    const exitCode = outcome.success ? 0 : 1;
    const chunk = Buffer.from(outcome.text, "utf8");
    capture.append(chunk);
    if (turn.onEvent) {
      const deltas = new OutputDeltas(turn, callId, toolName);
      deltas.push("stdout", chunk);
      deltas.end();
    }
    end(exitCode, durationMs);
    turn.logger.debug({ callId, toolName, exitCode, cwd }, "apply_patch run as a command was applied in place");
    const timeoutMs = req.timeoutMs ?? this.options.timeoutMs;
    const summary = { exitCode, durationMs, timedOut: false, timeoutMs };
    const body = formatExecOutput(summary, capture.snapshot(), turn.truncationPolicy);
    return { kind: "function", body, success: outcome.success, bounded: true };
  }

  /** One run of the request, with its begin and end events; `sandboxed: false` is an approved escalation. */
  private async run(
    inv: ToolInvocation<Ctx>,
    env: ExecEnvironment,
    req: ExecRequest,
    cwd: string,
    sandboxed: boolean,
  ): Promise<{ output: ToolOutput; escalatable: boolean }> {
    const { turn, callId, toolName } = inv;
    const timeoutMs = req.timeoutMs ?? this.options.timeoutMs;
    const capture = captureFor(turn.truncationPolicy);
    this.captures.set(inv, capture);
    const sink = this.options.spill ? new SpillingCapture(capture, this.options.spill, callId) : capture;
    const deltas = turn.onEvent ? new OutputDeltas(turn, callId, toolName) : undefined;
    const started = now();
    emitEvent(turn, { type: "exec_command_begin", callId, toolName, command: req.argv, cwd });
    let result: RunResult;
    try {
      result = await runCommand(
        env,
        { argv: req.argv, cwd, ...(req.env && { env: req.env }), sandboxed },
        {
          timeoutMs,
          signal: inv.signal,
          killGraceMs: this.options.killGraceMs,
          onOutput: (stream, chunk) => {
            sink.append(chunk);
            deltas?.push(stream, chunk);
          },
        },
      );
    } catch (err) {
      // The begin event pairs with an end, also for a command that could not start.
      emitEvent(turn, {
        type: "exec_command_end",
        callId,
        toolName,
        exitCode: null,
        durationMs: now() - started,
        timedOut: false,
        aborted: false,
      });
      throw err;
    }
    deltas?.end();
    emitEvent(turn, {
      type: "exec_command_end",
      callId,
      toolName,
      exitCode: result.exitCode,
      durationMs: result.durationMs,
      timedOut: result.timedOut,
      aborted: result.aborted,
    });
    turn.logger.debug(
      { callId, toolName, exitCode: result.exitCode, timedOut: result.timedOut, bytes: capture.totalBytes, sandboxed },
      "command finished",
    );
    const captured = capture.snapshot();
    const failed = result.exitCode !== 0 || result.timedOut || result.aborted;
    const escalatable = sandboxStopped(
      env,
      { sandboxed, exitCode: result.timedOut || result.aborted ? undefined : result.exitCode },
      captured,
    );
    const summary = { ...result, timeoutMs };
    const spilled =
      sink instanceof SpillingCapture
        ? await sink.finish(turn.truncationPolicy, Buffer.byteLength(timedOutPrefix(summary)))
        : undefined;
    const body = formatExecOutput(summary, captured, turn.truncationPolicy, spilled);
    return { output: { kind: "function", body, success: !failed, bounded: true }, escalatable };
  }
}
