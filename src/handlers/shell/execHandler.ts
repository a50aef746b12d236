import {
  shellOutputText,
  texts,
  type ExecEnvironment,
  type ShellCallParams,
  type ShellCommandOutput,
  type ToolCall,
  type ToolOutput,
  type ToolPayload,
} from "../../protocol/index.js";
import type { FileReadLedger, PolicySubject, ToolHandler, ToolInvocation } from "../../registry/index.js";
import { boundCaptured, budgetBytes, type SpillStore, type TruncationPolicy } from "../../turn/index.js";
import { shellCallRequests, shellStreamBudget } from "./shellCall.js";
import { environmentOf, filesOf, sandboxStopped, type SandboxEscalation } from "../../sandbox/index.js";
import { parseApplyPatchCommand } from "../apply_patch/index.js";
import { applyPatchCommandSubject, interceptedApplyPatch } from "./applyPatchCommand.js";
import { resolveWorkdirIn } from "./exec.js";
import { formatExecOutput, timedOutPrefix } from "./format.js";
import { SpillingCapture } from "./spillCapture.js";
import { captureFor, type HeadTailBuffer } from "./outputBuffer.js";
import { applyPatchAsCommand } from "./patchAsCommand.js";
import { runWithEvents } from "./runWithEvents.js";
import { commandLine, isKnownSafeCommand, scriptNeedsParser } from "./safeCommand.js";
import { loadBashParser } from "../../util/index.js";

/** Room for the `Wall time` / `aborted by user` lines, so the whole aborted text stays in budget. */
const ABORTED_HEADER_ROOM_BYTES = 128;

/** One command to run, as the model asked for it. */
export interface ExecRequest {
  argv: string[];
  workdir?: string;
  timeoutMs?: number;
  env?: Record<string, string>;
  /**
   * The model's script when the tool itself wraps it in the user's shell (`shell_command`,
   * `shell_call`): rules judge the script, not the tool's `bash -lc` around it.
   */
  script?: string;
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

  /** Function calls and the Responses API's `shell_call` items. */
  matchesKind(payload: ToolPayload): boolean {
    return payload.kind === "function" || payload.kind === "shell_call";
  }

  /** Every command a call runs: one, or a `shell_call`'s list. */
  private requests(payload: ToolPayload, args: unknown): ExecRequest[] {
    return payload.kind === "shell_call"
      ? shellCallRequests(payload.params, this.options.timeoutMs)
      : [this.request(payload, args)];
  }

  /** apply_patch run as a command is exclusive, as the apply_patch tool is. */
  supportsParallel(call: ToolCall): boolean {
    const payload = call.payload;
    const mayPatch = payload.kind !== "function" || MENTIONS_APPLY_PATCH.test(payload.arguments);
    if (!this.options.nonSafeExclusive && !mayPatch) return true;
    // Runs before argument validation: arguments that do not parse or have the wrong shape
    // cannot be shown safe, so the call runs exclusively (it will fail validation anyway).
    try {
      const args: unknown = payload.kind === "function" ? JSON.parse(payload.arguments || "{}") : undefined;
      return this.requests(payload, args).every((req) => {
        if (!Array.isArray(req.argv) || !req.argv.every((a) => typeof a === "string")) return false;
        if (mayPatch && parseApplyPatchCommand(req.argv) !== undefined) return false;
        return !this.options.nonSafeExclusive || knownSafe(req);
      });
    } catch {
      return false;
    }
  }

  /**
   * Mutating unless every command is known to be safe. With a permission engine, a script the
   * verdict needs the bash parser for waits for it to load (once); without one, such a script
   * counts as mutating (it only waits for the readiness gate) and the parser is not loaded.
   */
  isMutating(inv: ToolInvocation<Ctx>): boolean | Promise<boolean> {
    const reqs = this.requests(inv.payload, inv.args);
    if (reqs.some((req) => parseApplyPatchCommand(req.argv) !== undefined)) return true;
    if (!inv.turn.permissions) return reqs.some((req) => !knownSafe(req));
    const mutating = (): boolean => reqs.some((req) => !knownSafe(req));
    return reqs.some((req) => scriptNeedsParser(req.argv)) ? loadBashParser().then(mutating) : mutating();
  }

  /**
   * The argv lists the call runs, for the policy stage to reduce to what runs (DESIGN section
   * 11); for apply_patch run as a command, the apply_patch tool's subject (its paths, judged by
   * apply_patch's rules). A `shell_call`'s commands are judged together.
   */
  policySubject(inv: ToolInvocation<Ctx>): PolicySubject {
    const reqs = this.requests(inv.payload, inv.args);
    const [only] = reqs;
    if (reqs.length === 1 && only) {
      const { argv, workdir } = only;
      const patch = applyPatchCommandSubject(argv, workdir);
      if (patch !== undefined) return patch;
    }
    const commands = reqs.filter((r) => r.script === undefined).map((r) => r.argv);
    const scripts = reqs.flatMap((r) => (r.script === undefined ? [] : [r.script]));
    return {
      ...(commands.length > 0 && { commands }),
      ...(scripts.length > 0 && { scripts }),
      summary: reqs.map((r) => commandLine(r.argv)).join("\n"),
    };
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
    if (inv.payload.kind === "shell_call") return this.shellCall(inv, inv.payload.params);
    const req = this.request(inv.payload, inv.args);
    const { turn } = inv;
    const env = environmentOf(turn);
    const cwd = await resolveWorkdirIn(filesOf(turn), turn.cwd, req.workdir);
    const patch = interceptedApplyPatch(req.argv, cwd);
    if (patch !== undefined) {
      const capture = captureFor(turn.truncationPolicy);
      this.captures.set(inv, capture);
      const timeoutMs = req.timeoutMs ?? this.options.timeoutMs;
      return applyPatchAsCommand(inv, req.argv, { ...patch, capture, timeoutMs, fileReads: this.options.fileReads });
    }
    return (await this.escalating(inv, req, (sandboxed) => this.run(inv, env, req, cwd, sandboxed))).output;
  }

  /**
   * A run the sandbox stopped is run again when a person allows: outside it, or inside with the
   * refused domains allowed for the session.
   */
  private async escalating<T extends { escalation: SandboxEscalation | undefined }>(
    inv: ToolInvocation<Ctx>,
    req: ExecRequest,
    attempt: (sandboxed: boolean) => Promise<T>,
  ): Promise<T> {
    const run = await attempt(true);
    const { escalation } = run;
    if (!escalation || !inv.escalate) return run;
    const allowed = await inv.escalate({ reason: escalation.reason, summary: commandLine(req.argv) });
    return allowed ? attempt(escalation.grant()) : run;
  }

  private runOptions(req: ExecRequest): { timeoutMs: number; killGraceMs: number | undefined } {
    return { timeoutMs: req.timeoutMs ?? this.options.timeoutMs, killGraceMs: this.options.killGraceMs };
  }

  /** One run of the request, with its begin and end events; `sandboxed: false` is an approved escalation. */
  private async run(
    inv: ToolInvocation<Ctx>,
    env: ExecEnvironment,
    req: ExecRequest,
    cwd: string,
    sandboxed: boolean,
  ): Promise<{ output: ToolOutput; escalation: SandboxEscalation | undefined }> {
    const { turn, callId } = inv;
    const timeoutMs = req.timeoutMs ?? this.options.timeoutMs;
    const capture = captureFor(turn.truncationPolicy);
    this.captures.set(inv, capture);
    const sink = this.options.spill ? new SpillingCapture(capture, this.options.spill, callId) : capture;
    const result = await runWithEvents(inv, env, { ...req, cwd, sandboxed }, this.runOptions(req), (_stream, chunk) => {
      sink.append(chunk);
    });
    const captured = capture.snapshot();
    const failed = result.exitCode !== 0 || result.timedOut || result.aborted;
    const escalation = sandboxStopped(
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
    return { output: { kind: "function", body, success: !failed, bounded: true }, escalation };
  }

  /**
   * A `shell_call`: its commands one after another, each by the user's shell, each answered
   * with its own stdout, stderr and outcome; a timeout or abort ends the call (later commands
   * do not run). A command the sandbox stopped may be rerun outside it when a person allows.
   */
  private async shellCall(inv: ToolInvocation<Ctx>, params: ShellCallParams): Promise<ToolOutput> {
    const { turn } = inv;
    const env = environmentOf(turn);
    const cwd = await resolveWorkdirIn(filesOf(turn), turn.cwd);
    const budget = shellStreamBudget(turn.truncationPolicy, params.maxOutputLength);
    const output: ShellCommandOutput[] = [];
    for (const req of shellCallRequests(params, this.options.timeoutMs)) {
      const run = await this.escalating(inv, req, (sandboxed) =>
        this.runStreams(inv, env, req, cwd, sandboxed, budget),
      );
      output.push(run.output);
      if (run.output.outcome.type === "timeout" || inv.signal.aborted) break;
    }
    const success = output.every((o) => o.outcome.type === "exit" && o.outcome.exit_code === 0);
    const shellCall = { output, maxOutputLength: params.maxOutputLength };
    return { kind: "function", body: shellOutputText(output), success, bounded: true, shellCall };
  }

  /** One command of a shell call, its streams captured apart and bounded to `budget` each. */
  private async runStreams(
    inv: ToolInvocation<Ctx>,
    env: ExecEnvironment,
    req: ExecRequest,
    cwd: string,
    sandboxed: boolean,
    budget: TruncationPolicy,
  ): Promise<{ output: ShellCommandOutput; escalation: SandboxEscalation | undefined }> {
    const streams = { stdout: captureFor(budget), stderr: captureFor(budget) };
    // The aborted output shows what the command wrote to stdout, as for other commands.
    this.captures.set(inv, streams.stdout);
    const result = await runWithEvents(inv, env, { ...req, cwd, sandboxed }, this.runOptions(req), (stream, chunk) => {
      streams[stream].append(chunk);
    });
    const stderr = streams.stderr.snapshot();
    const escalation = sandboxStopped(
      env,
      { sandboxed, exitCode: result.timedOut || result.aborted ? undefined : result.exitCode },
      stderr,
    );
    const output: ShellCommandOutput = {
      stdout: boundCaptured("", streams.stdout.snapshot(), budget).text,
      stderr: boundCaptured("", stderr, budget).text,
      outcome: result.timedOut ? { type: "timeout" } : { type: "exit", exit_code: result.exitCode },
    };
    return { output, escalation };
  }
}
