import type { Logger } from "pino";
import { quote } from "shell-quote";
import type { ExecEnvironment, HookConfig, HookMatcher, PermissionMode, RuntimeHookEvent } from "../protocol/index.js";
import { isRecord } from "../util/index.js";
import { compileMatcher, matcherTakes, validateHookConfig } from "./hookConfig.js";
import {
  DECISION_RANK,
  interpret,
  optionalString,
  readPermissionOutput,
  readPostOutput,
  readPreOutput,
  specificOutput,
  stdoutJson,
  type CompiledHook,
  type PermissionRequestResult,
  type PostOpinion,
  type PreToolUseResult,
} from "./hookOutput.js";
import { runHookProcess, type HookProcessResult } from "./hookProcess.js";

export type { PermissionRequestResult, PreToolUseResult };

/*
 * Hooks (DESIGN section 11) in the format Claude Code and Codex share, so a `hooks.json` or
 * `.claude/settings.json` hook block pastes in unchanged: PreToolUse, PermissionRequest,
 * PostToolUse and PostToolUseFailure run here; the events of an agent loop are kept for the
 * embedder.
 */

/** The events the runtime fires. */
export type HookEvent = RuntimeHookEvent;

/** Claude Code's names for our modes: what hook scripts written for it compare `permission_mode` with. */
const CLAUDE_MODE_NAMES: Record<PermissionMode, string> = {
  default: "default",
  accept_edits: "acceptEdits",
  read_only: "plan",
  bypass: "bypassPermissions",
};
const DEFAULT_TIMEOUT_S = 60;
/** A deny given without a reason still needs one for the model's text. */
const NO_REASON = "no reason given";

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

export interface PostToolUseContext extends HookCallContext {
  toolResponse: unknown;
}

export interface PostToolUseResult {
  /** The first blocking hook in config order; its reason may be empty (`texts.postToolUseBlocked` words it). */
  block?: { reason: string };
  /** Text to append to what the model sees, in config order. */
  additionalContext: string[];
}

interface CompiledMatcher {
  pattern: RegExp | undefined;
  hooks: CompiledHook[];
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

// Compiled once per config object: a turn's hooks are a session's, shared by every call.
const compiled = new WeakMap<HookConfig, Hooks>();

/** The compiled hooks of a turn's config (validated on first use; throws naming the bad key). */
export function hooksFor(config: HookConfig): Hooks {
  let hooks = compiled.get(config);
  if (!hooks) compiled.set(config, (hooks = Hooks.from(config)));
  return hooks;
}

/**
 * The `{command}` of the PreToolUse blocked text: the command string of `shell_command` and
 * `exec_command`, the argv of `shell` and `local_shell` joined with shell quoting; undefined
 * for other tools (the text then names the tool).
 */
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
