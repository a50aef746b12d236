import { pino, type Logger } from "pino";
import { ReadinessFlag } from "./readiness.js";
import type { ToolEvent } from "./events.js";
import { DEFAULT_TRUNCATION_POLICY, type TruncationPolicy } from "./truncation.js";
import type { ExecEnvironment, HookConfig, PermissionDecider } from "../protocol/index.js";
import type { CallJournal, TurnJournal } from "./journal.js";

/** What one turn shares between its calls. */
export interface TurnContext {
  /** Working directory relative paths resolve against. */
  cwd: string;
  /** Mutating calls wait until this gate is ready. */
  toolCallGate: ReadinessFlag;
  truncationPolicy: TruncationPolicy;
  logger: Logger;
  /** Exceptions thrown here are caught and logged. */
  onEvent?: (event: ToolEvent) => void;
  /** The session's permission engine; none: every call is allowed (DESIGN section 11). */
  permissions?: PermissionDecider;
  /** Hooks by event (the hooks.json shape): PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure run. */
  hooks?: HookConfig;
  /** The hooks' `transcript_path`: the embedder's transcript of the conversation, if it keeps one. */
  transcriptPath?: string;
  /**
   * Where commands run and files are written (DESIGN section 12); none: local, full access,
   * the default environment policy (`environmentOf` in src/sandbox).
   */
  environment?: ExecEnvironment;
  /**
   * Where the turn's calls and outputs are journaled (DESIGN section 17): an output is durable
   * there before anyone is handed it, and `ToolCallRuntime.resume` answers from it after a crash.
   */
  journal?: TurnJournal;
  /** @internal The running turn's journal, as dispatch and the policy stage report to it (set by the runtime). */
  callJournal?: CallJournal;
}

let silentLogger: Logger | undefined;

/** Library code is silent unless the embedder passes a logger. */
export function defaultLogger(): Logger {
  silentLogger ??= pino({ level: "silent" });
  return silentLogger;
}

/** What pino puts in place of a level's method while that level is off: one function, every logger. */
let levelOff: unknown;

/**
 * `logger.isLevelEnabled("debug")` for a per-call check: a logger whose `debug` is pino's
 * stand-in for an off level answers with one property read (`isLevelEnabled` reads four
 * symbol-keyed properties of a logger that has dozens, a fifth of a plain call's overhead).
 */
export function debugEnabled(logger: Logger): boolean {
  levelOff ??= defaultLogger().debug;
  return logger.debug !== levelOff && logger.isLevelEnabled("debug");
}

export function createTurnContext(partial: Partial<TurnContext> = {}): TurnContext {
  const policy = partial.truncationPolicy ?? DEFAULT_TRUNCATION_POLICY;
  if (policy.mode !== "bytes" && policy.mode !== "tokens") {
    throw new TypeError(`truncationPolicy.mode must be "bytes" or "tokens", got ${JSON.stringify(policy.mode)}`);
  }
  if (!Number.isInteger(policy.limit) || policy.limit < 0) {
    throw new TypeError(`truncationPolicy.limit must be a non-negative integer, got ${String(policy.limit)}`);
  }
  const turn: TurnContext = {
    cwd: partial.cwd ?? process.cwd(),
    toolCallGate: partial.toolCallGate ?? new ReadinessFlag(),
    truncationPolicy: { ...policy },
    logger: partial.logger ?? defaultLogger(),
  };
  if (partial.onEvent) turn.onEvent = partial.onEvent;
  if (partial.permissions) turn.permissions = partial.permissions;
  if (partial.hooks) turn.hooks = partial.hooks;
  if (partial.transcriptPath !== undefined) turn.transcriptPath = partial.transcriptPath;
  if (partial.environment) turn.environment = partial.environment;
  if (partial.journal) turn.journal = partial.journal;
  return turn;
}
