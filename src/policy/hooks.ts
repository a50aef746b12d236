import type { Logger } from "pino";
import { quote } from "shell-quote";
import type {
  EmbedderHookEvent,
  ExecEnvironment,
  HookCommand,
  HookConfig,
  HookEventName,
  HookMatcher,
  PermissionMode,
  RuntimeHookEvent,
} from "../protocol/index.js";
import { errorMessage, isRecord } from "../util/index.js";
import { claudeNamesOf } from "./claudeTools.js";
import { runHookProcess, type HookProcessResult } from "./hookProcess.js";

/*
 * Hooks (DESIGN section 11) in the format Claude Code and Codex share, so a `hooks.json` or
 * `.claude/settings.json` hook block pastes in unchanged: PreToolUse, PermissionRequest,
 * PostToolUse and PostToolUseFailure run here; the events of an agent loop are kept for the
 * embedder.
 */

/** The events the runtime fires. */
export type HookEvent = RuntimeHookEvent;

export interface HookCallContext {
  toolName: string;
  toolInput: unknown;
  toolUseId: string;
  /** The turn's cwd: where hooks run, and the `cwd` they read. */
  cwd: string;
  /** Where hooks run: the turn's environment (`environmentOf(turn)`). */
  environment: ExecEnvironment;
  /** Aborting kills every running hook; the run then rejects with the signal's reason. */
  signal: AbortSignal;
  /** Where failing hooks (bad exit, timeout, garbage output) are reported; they never fail the call. */
  logger: Logger;
  /** `session_id` of the hook input: the router's session id (null when not given). */
  sessionId?: string | undefined;
  /** `transcript_path`: null unless the embedder gives one (`TurnContext.transcriptPath`). */
  transcriptPath?: string | undefined;
  /** The session's mode; the input's `permission_mode` carries Claude Code's name for it. */
  permissionMode?: PermissionMode | undefined;
}

export interface PostToolUseFailureContext extends HookCallContext {
  /** What the model was answered: the failure's text. */
  error: string;
}

export interface PermissionRequestResult {
  /** Absent when no hook decided (the approver is asked). */
  decision?: "allow" | "deny";
  /** The deciding hook's `message` (or, for an exit 2, its stderr). */
  message?: string;
  /** A deny with `interrupt: true`: the whole turn stops, as a person's "abort". */
  interrupt?: boolean;
}

export interface PostToolUseContext extends HookCallContext {
  toolResponse: unknown;
}

export interface PreToolUseResult {
  /** The strongest opinion given: deny over ask over allow; absent when no hook gave one. */
  decision?: "allow" | "deny" | "ask";
  /** The deciding hook's reason; always set for a deny. */
  reason?: string;
  /** From the first hook in config order that gave one; the caller validates it like the original. */
  updatedInput?: unknown;
}

export interface PostToolUseResult {
  /** The first blocking hook in config order; its reason may be empty (`texts.postToolUseBlocked` words it). */
  block?: { reason: string };
  /** Text to append to what the model sees, in config order. */
  additionalContext: string[];
}

const RUNTIME_EVENTS: readonly RuntimeHookEvent[] = [
  "PreToolUse",
  "PermissionRequest",
  "PostToolUse",
  "PostToolUseFailure",
];
export const EMBEDDER_HOOK_EVENTS: readonly EmbedderHookEvent[] = [
  "UserPromptSubmit",
  "Stop",
  "SubagentStop",
  "PreCompact",
  "SessionStart",
  "SessionEnd",
  "Notification",
];
const EVENTS: readonly HookEventName[] = [...RUNTIME_EVENTS, ...EMBEDDER_HOOK_EVENTS];
/** Claude Code's names for our modes: what hook scripts written for it compare `permission_mode` with. */
const CLAUDE_MODE_NAMES: Record<PermissionMode, string> = {
  default: "default",
  accept_edits: "acceptEdits",
  read_only: "plan",
  bypass: "bypassPermissions",
};
const MATCHER_KEYS = ["matcher", "hooks"];
const COMMAND_KEYS = ["type", "command", "timeout"];
const DEFAULT_TIMEOUT_S = 60;
/** A deny given without a reason still needs one for the model's text. */
const NO_REASON = "no reason given";
/** How much of a failing hook's output goes into the log. */
const LOG_OUTPUT_CHARS = 500;

function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

/** `undefined` for a matcher that takes every tool, else the anchored expression. */
export function compileMatcher(matcher: string | undefined): RegExp | undefined {
  if (matcher === undefined || matcher === "" || matcher === "*") return undefined;
  // The group keeps an alternation inside the anchors: `^(?:Bash|shell)$`, not `^Bash|shell$`.
  return new RegExp(`^(?:${matcher})$`);
}

/** Does a compiled matcher take `toolName`, by our name or a Claude Code name for the tool (`Bash`, `Edit`)? */
export function matcherTakes(pattern: RegExp | undefined, toolName: string): boolean {
  return pattern === undefined || pattern.test(toolName) || claudeNamesOf(toolName).some((n) => pattern.test(n));
}

/**
 * Where a lenient validation (another agent's settings file) reports what it reads past: an
 * unknown key, a hook type that cannot run here. Without it those are errors.
 */
type Warn = ((message: string) => void) | undefined;

function checkKeys(value: Record<string, unknown>, known: readonly string[], where: string, warn: Warn): void {
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    if (warn) warn(`${where}: unknown key ${key}; ignored`);
    else throw new Error(`${where}: unknown key ${key} (known keys: ${known.join(", ")})`);
  }
}

function validateCommand(value: unknown, where: string, warn: Warn): HookCommand | undefined {
  if (!isRecord(value)) throw new Error(`${where}: expected an object, got ${typeName(value)}`);
  checkKeys(value, COMMAND_KEYS, where, warn);
  if (value["type"] !== "command") {
    const type = value["type"];
    const got = typeof type === "string" ? JSON.stringify(type) : typeName(type);
    if (warn && typeof type === "string") {
      // Claude Code's "prompt" hooks ask its model: there is none here to ask.
      warn(`${where}: a hook of type ${got} is not run here (only "command" hooks run); dropped`);
      return undefined;
    }
    throw new Error(`${where}.type: expected "command" (the only hook type supported), got ${got}`);
  }
  const command = value["command"];
  if (typeof command !== "string" || command.trim() === "") {
    throw new Error(`${where}.command: expected a non-empty string, got ${typeName(command)}`);
  }
  const timeout = value["timeout"];
  if (timeout === undefined) return { type: "command", command };
  if (typeof timeout !== "number" || !Number.isFinite(timeout) || timeout <= 0) {
    throw new Error(`${where}.timeout: expected a positive number`);
  }
  return { type: "command", command, timeout };
}

function validateMatcher(value: unknown, where: string, warn: Warn): HookMatcher {
  if (!isRecord(value)) throw new Error(`${where}: expected an object, got ${typeName(value)}`);
  checkKeys(value, MATCHER_KEYS, where, warn);
  const matcher = value["matcher"];
  if (matcher !== undefined && typeof matcher !== "string") {
    throw new Error(`${where}.matcher: expected a string, got ${typeName(matcher)}`);
  }
  try {
    compileMatcher(matcher);
  } catch (err) {
    throw new Error(`${where}.matcher: invalid regular expression ${JSON.stringify(matcher)}: ${errorMessage(err)}`);
  }
  const hooks = value["hooks"];
  if (!Array.isArray(hooks)) throw new Error(`${where}.hooks: expected an array, got ${typeName(hooks)}`);
  const commands = hooks.flatMap((hook, i) => validateCommand(hook, `${where}.hooks[${i}]`, warn) ?? []);
  return matcher === undefined ? { hooks: commands } : { matcher, hooks: commands };
}

/**
 * Checks a hook config from a file or a plain-JS caller and returns a clean copy. Errors name
 * the key path under `where` (`hooks.PreToolUse[0].hooks[1].timeout: expected a positive
 * number`); unknown events and keys are errors, so a typo never silently disables a hook.
 * With `warn` (another agent's settings file, read as it is), unknown keys and hook types
 * that cannot run here are reported there and read past; unknown events stay errors.
 */
export function validateHookConfig(value: unknown, where: string, warn?: (message: string) => void): HookConfig {
  if (!isRecord(value)) throw new Error(`${where}: expected an object, got ${typeName(value)}`);
  const config: HookConfig = {};
  for (const [event, matchers] of Object.entries(value)) {
    if (!(EVENTS as readonly string[]).includes(event)) {
      throw new Error(`${where}: unknown hook event ${event} (known: ${EVENTS.join(", ")})`);
    }
    const at = `${where}.${event}`;
    if (!Array.isArray(matchers)) throw new Error(`${at}: expected an array, got ${typeName(matchers)}`);
    config[event as HookEventName] = matchers.map((m, i) => validateMatcher(m, `${at}[${i}]`, warn));
  }
  return config;
}

/**
 * One warning per event of `config` the runtime never fires (naming `where`, e.g. the file):
 * they load and wait for the embedder, but nothing here runs them.
 */
export function hookConfigWarnings(config: HookConfig, where: string): string[] {
  return EMBEDDER_HOOK_EVENTS.filter((event) => (config[event]?.length ?? 0) > 0).map(
    (event) =>
      `${where}: hooks.${event} never runs here (a tool runtime has no ${event} moment); kept for the embedder (embedderHooks)`,
  );
}

/**
 * The matchers of an event the runtime never fires (`Stop`, `SessionStart`, ...), for the
 * embedder that owns that moment to run; empty when the config has none.
 */
export function embedderHooks(config: HookConfig, event: EmbedderHookEvent): HookMatcher[] {
  return config[event] ?? [];
}

interface CompiledHook {
  command: string;
  timeoutMs: number;
}

interface CompiledMatcher {
  pattern: RegExp | undefined;
  hooks: CompiledHook[];
}

type PermissionDecision = NonNullable<PreToolUseResult["decision"]>;
interface PostOpinion {
  block?: { reason: string };
  additionalContext?: string;
}

const DECISION_RANK = { allow: 1, ask: 2, deny: 3 } as const;
const PERMISSION_DECISIONS: readonly unknown[] = ["allow", "deny", "ask"];
/** Claude Code's older PreToolUse form: top-level `decision` with `reason`. */
const LEGACY_DECISIONS = { approve: "allow", block: "deny" } as const;

/** A hook's output we could not use: logged, and the call goes on. */
class HookOutputError extends Error {}

function optionalString(value: Record<string, unknown>, key: string): string | undefined {
  const v = value[key];
  if (v !== undefined && typeof v !== "string") throw new HookOutputError(`${key}: expected a string`);
  return v;
}

/** The parsed stdout of a hook that exited 0; undefined when it printed nothing. */
function stdoutJson(stdout: string): Record<string, unknown> | undefined {
  if (stdout.trim() === "") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    throw new HookOutputError("stdout is not JSON");
  }
  if (!isRecord(parsed)) throw new HookOutputError("stdout is not a JSON object");
  return parsed;
}

/** `hookSpecificOutput`, checked to be meant for `event`. */
function specificOutput(json: Record<string, unknown>, event: HookEvent): Record<string, unknown> {
  const specific = json["hookSpecificOutput"];
  if (specific === undefined) return {};
  if (!isRecord(specific)) throw new HookOutputError("hookSpecificOutput: expected an object");
  const name = specific["hookEventName"];
  if (name !== undefined && name !== event) {
    throw new HookOutputError(`hookSpecificOutput.hookEventName: expected ${event}`);
  }
  return specific;
}

function readPreOutput(stdout: string): PreToolUseResult {
  const json = stdoutJson(stdout);
  if (json === undefined) return {};
  const specific = specificOutput(json, "PreToolUse");
  const opinion: PreToolUseResult = {};
  const decision = specific["permissionDecision"];
  if (decision !== undefined) {
    if (!PERMISSION_DECISIONS.includes(decision)) {
      throw new HookOutputError('permissionDecision: expected "allow", "deny" or "ask"');
    }
    opinion.decision = decision as PermissionDecision;
    const reason = optionalString(specific, "permissionDecisionReason");
    if (reason !== undefined) opinion.reason = reason;
  } else if (json["decision"] !== undefined) {
    // A deny written in the older form must not be lost (it would fail open).
    const legacy = json["decision"];
    if (legacy !== "approve" && legacy !== "block")
      throw new HookOutputError('decision: expected "approve" or "block"');
    opinion.decision = LEGACY_DECISIONS[legacy];
    const reason = optionalString(json, "reason");
    if (reason !== undefined) opinion.reason = reason;
  }
  const updated = specific["updatedInput"];
  if (updated !== undefined && updated !== null) opinion.updatedInput = updated;
  return opinion;
}

/**
 * Claude Code's PermissionRequest output: `hookSpecificOutput.decision` = `{ behavior: "allow" |
 * "deny", message?, interrupt? }`. An allow that rewrites the input or the permissions is
 * refused (as Codex does): an answer we cannot honour whole is no answer.
 */
function readPermissionOutput(stdout: string): PermissionRequestResult {
  const json = stdoutJson(stdout);
  if (json === undefined) return {};
  const decision = specificOutput(json, "PermissionRequest")["decision"];
  if (decision === undefined) return {};
  if (!isRecord(decision)) throw new HookOutputError("decision: expected an object");
  const behavior = decision["behavior"];
  if (behavior !== "allow" && behavior !== "deny")
    throw new HookOutputError('decision.behavior: expected "allow" or "deny"');
  for (const key of ["updatedInput", "updatedPermissions"]) {
    if (decision[key] !== undefined && decision[key] !== null)
      throw new HookOutputError(`decision.${key}: not supported`);
  }
  const opinion: PermissionRequestResult = { decision: behavior };
  const message = optionalString(decision, "message");
  if (message !== undefined && message !== "") opinion.message = message;
  if (behavior === "deny" && decision["interrupt"] === true) opinion.interrupt = true;
  return opinion;
}

function readPostOutput(stdout: string): PostOpinion {
  const json = stdoutJson(stdout);
  if (json === undefined) return {};
  const specific = specificOutput(json, "PostToolUse");
  const opinion: PostOpinion = {};
  const decision = json["decision"];
  if (decision !== undefined) {
    if (decision !== "block") throw new HookOutputError('decision: expected "block"');
    opinion.block = { reason: optionalString(json, "reason") ?? "" };
  }
  const context = optionalString(specific, "additionalContext");
  if (context !== undefined && context !== "") opinion.additionalContext = context;
  return opinion;
}

/**
 * What a finished hook run means: exit 0 → `read(stdout)`; exit 2 → `blocked(stderr)`;
 * anything else → logged, no opinion (undefined).
 */
function interpret<T>(
  run: HookProcessResult,
  hook: CompiledHook,
  ctx: { event: HookEvent; toolName: string; logger: Logger },
  read: (stdout: string) => T,
  blocked: (reason: string) => T,
): T | undefined {
  const log = { event: ctx.event, tool: ctx.toolName, hook: hook.command };
  switch (run.kind) {
    case "aborted": // the caller rejects: an aborted call has no opinions to weigh
      return undefined;
    case "failed":
      ctx.logger.warn({ ...log, err: run.message }, "hook could not start; ignored");
      return undefined;
    case "timed_out":
      ctx.logger.warn({ ...log, timeoutMs: hook.timeoutMs }, "hook timed out and was killed; ignored");
      return undefined;
    case "overflow":
      ctx.logger.warn({ ...log, stream: run.stream }, "hook printed too much and was killed; ignored");
      return undefined;
    case "exited":
      break;
  }
  if (run.code === 2) return blocked(run.stderr.trim());
  if (run.code !== 0) {
    const stderr = run.stderr.trim().slice(0, LOG_OUTPUT_CHARS);
    ctx.logger.warn({ ...log, exitCode: run.code, signal: run.signal, stderr }, "hook failed; ignored");
    return undefined;
  }
  try {
    return read(run.stdout);
  } catch (err) {
    if (!(err instanceof HookOutputError)) throw err;
    const stdout = run.stdout.slice(0, LOG_OUTPUT_CHARS);
    ctx.logger.warn({ ...log, problem: err.message, stdout }, "hook printed unusable output; ignored");
    return undefined;
  }
}

/**
 * A hook config compiled once per session: matchers become anchored expressions and each
 * tool's matching hooks are remembered, so a call no hook matches pays one map lookup.
 */
export class Hooks {
  private readonly matchers: Record<HookEvent, CompiledMatcher[]>;
  private readonly byTool: Record<HookEvent, Map<string, CompiledHook[]>> = {
    PreToolUse: new Map(),
    PermissionRequest: new Map(),
    PostToolUse: new Map(),
    PostToolUseFailure: new Map(),
  };

  private constructor(config: HookConfig) {
    const compile = (matchers: HookMatcher[] = []): CompiledMatcher[] =>
      matchers.map((m) => ({
        pattern: compileMatcher(m.matcher),
        hooks: m.hooks.map((h) => ({ command: h.command, timeoutMs: (h.timeout ?? DEFAULT_TIMEOUT_S) * 1000 })),
      }));
    this.matchers = {
      PreToolUse: compile(config.PreToolUse),
      PermissionRequest: compile(config.PermissionRequest),
      PostToolUse: compile(config.PostToolUse),
      PostToolUseFailure: compile(config.PostToolUseFailure),
    };
  }

  /** Validates (a plain-JS caller's config is checked too) and compiles; throws naming the bad key. */
  static from(config: HookConfig): Hooks {
    return new Hooks(validateHookConfig(config, "hooks"));
  }

  hasPre(toolName: string): boolean {
    return this.matching("PreToolUse", toolName).length > 0;
  }

  hasPost(toolName: string): boolean {
    return this.matching("PostToolUse", toolName).length > 0;
  }

  /** Does any hook of `event` match `toolName`? */
  has(event: HookEvent, toolName: string): boolean {
    return this.matching(event, toolName).length > 0;
  }

  /**
   * The hooks for `toolName`, in config order. A command listed under several matching
   * matchers runs once (as Claude Code does), with its first timeout.
   */
  private matching(event: HookEvent, toolName: string): CompiledHook[] {
    let hooks = this.byTool[event].get(toolName);
    if (hooks === undefined) {
      const seen = new Set<string>();
      hooks = this.matchers[event]
        .filter((m) => matcherTakes(m.pattern, toolName))
        .flatMap((m) => m.hooks)
        .filter((h) => {
          if (seen.has(h.command)) return false;
          seen.add(h.command);
          return true;
        });
      this.byTool[event].set(toolName, hooks);
    }
    return hooks;
  }

  /** Runs every matching hook in parallel and waits for all; rejects only when `signal` aborts. */
  private async runAll(
    event: HookEvent,
    ctx: HookCallContext,
    extra: Record<string, unknown>,
  ): Promise<Array<{ hook: CompiledHook; run: HookProcessResult }>> {
    const hooks = this.matching(event, ctx.toolName);
    if (hooks.length === 0) return [];
    ctx.signal.throwIfAborted();
    // One trailing newline: line readers (`read`, `head -n1`) see a complete line.
    const input = `${JSON.stringify({
      session_id: ctx.sessionId ?? null,
      transcript_path: ctx.transcriptPath ?? null,
      permission_mode: CLAUDE_MODE_NAMES[ctx.permissionMode ?? "default"],
      hook_event_name: event,
      cwd: ctx.cwd,
      tool_name: ctx.toolName,
      tool_input: ctx.toolInput,
      tool_use_id: ctx.toolUseId,
      ...extra,
    })}\n`;
    const runs = await Promise.all(
      hooks.map(async (hook) => ({
        hook,
        run: await runHookProcess(ctx.environment, {
          command: hook.command,
          cwd: ctx.cwd,
          input,
          timeoutMs: hook.timeoutMs,
          signal: ctx.signal,
        }),
      })),
    );
    // An aborted run is not "no objection": the caller must not go on with the call.
    ctx.signal.throwIfAborted();
    return runs;
  }

  async runPreToolUse(ctx: HookCallContext): Promise<PreToolUseResult> {
    const runs = await this.runAll("PreToolUse", ctx, {});
    const info = { event: "PreToolUse" as const, toolName: ctx.toolName, logger: ctx.logger };
    const opinions = runs.map(({ hook, run }) =>
      interpret<PreToolUseResult>(run, hook, info, readPreOutput, (reason) => ({ decision: "deny", reason })),
    );
    const result: PreToolUseResult = {};
    let decided: PreToolUseResult | undefined;
    for (const opinion of opinions) {
      // Strictly stronger only: among equals the first in config order decides.
      if (opinion?.decision === undefined) continue;
      if (decided?.decision === undefined || DECISION_RANK[opinion.decision] > DECISION_RANK[decided.decision]) {
        decided = opinion;
      }
    }
    if (decided?.decision !== undefined) {
      result.decision = decided.decision;
      const reason = decided.reason || (decided.decision === "deny" ? NO_REASON : undefined);
      if (reason !== undefined) result.reason = reason;
    }
    const updated = opinions.find((o) => o?.updatedInput !== undefined);
    if (updated !== undefined) result.updatedInput = updated.updatedInput;
    return result;
  }

  /**
   * Asked before the approver when a call needs approval: any deny wins (exit 2 or `behavior:
   * "deny"`), else an allow; no decision leaves the call to the approver.
   */
  async runPermissionRequest(ctx: HookCallContext): Promise<PermissionRequestResult> {
    const runs = await this.runAll("PermissionRequest", ctx, {});
    const info = { event: "PermissionRequest" as const, toolName: ctx.toolName, logger: ctx.logger };
    const opinions = runs.map(({ hook, run }) =>
      interpret<PermissionRequestResult>(run, hook, info, readPermissionOutput, (reason) =>
        reason === "" ? { decision: "deny" } : { decision: "deny", message: reason },
      ),
    );
    return opinions.find((o) => o?.decision === "deny") ?? opinions.find((o) => o?.decision === "allow") ?? {};
  }

  /** After a call that failed: context for the model, in config order (these hooks cannot block). */
  async runPostToolUseFailure(ctx: PostToolUseFailureContext): Promise<string[]> {
    const runs = await this.runAll("PostToolUseFailure", ctx, { error: ctx.error, is_interrupt: false });
    const info = { event: "PostToolUseFailure" as const, toolName: ctx.toolName, logger: ctx.logger };
    const read = (stdout: string): string | undefined => {
      const json = stdoutJson(stdout);
      const context = json && optionalString(specificOutput(json, "PostToolUseFailure"), "additionalContext");
      return context || undefined;
    };
    // Exit 2 shows its stderr to the model, as Claude Code does for this event.
    return runs.flatMap(({ hook, run }) => interpret(run, hook, info, read, (reason) => reason || undefined) ?? []);
  }

  async runPostToolUse(ctx: PostToolUseContext): Promise<PostToolUseResult> {
    const runs = await this.runAll("PostToolUse", ctx, { tool_response: ctx.toolResponse });
    const info = { event: "PostToolUse" as const, toolName: ctx.toolName, logger: ctx.logger };
    const opinions = runs.map(({ hook, run }) =>
      interpret<PostOpinion>(run, hook, info, readPostOutput, (reason) => ({ block: { reason } })),
    );
    const result: PostToolUseResult = { additionalContext: [] };
    for (const opinion of opinions) {
      if (opinion?.block !== undefined) result.block ??= opinion.block;
      if (opinion?.additionalContext !== undefined) result.additionalContext.push(opinion.additionalContext);
    }
    return result;
  }
}

/**
 * The `{command}` of the PreToolUse blocked text: the command string of `shell_command` and
 * `exec_command`, the argv of `shell` and `local_shell` joined with shell quoting; undefined
 * for other tools (the text then names the tool).
 */
// Compiled once per config object: a turn's hooks are a session's, shared by every call.
const compiled = new WeakMap<HookConfig, Hooks>();

/** The compiled hooks of a turn's config (validated on first use; throws naming the bad key). */
export function hooksFor(config: HookConfig): Hooks {
  let hooks = compiled.get(config);
  if (!hooks) compiled.set(config, (hooks = Hooks.from(config)));
  return hooks;
}

export function blockedCommand(toolName: string, input: unknown): string | undefined {
  if (!isRecord(input)) return undefined;
  switch (toolName) {
    case "shell_command":
    case "exec_command": {
      const command = input[toolName === "exec_command" ? "cmd" : "command"];
      return typeof command === "string" ? command : undefined;
    }
    case "shell":
    case "local_shell": {
      const argv = input["command"];
      return Array.isArray(argv) && argv.every((a) => typeof a === "string") ? quote(argv) : undefined;
    }
    default:
      return undefined;
  }
}
