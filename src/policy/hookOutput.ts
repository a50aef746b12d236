import type { Logger } from "pino";
import type { RuntimeHookEvent } from "../protocol/index.js";
import { isRecord } from "../util/index.js";
import type { HookProcessResult } from "./hookProcess.js";

/*
 * What a hook's run means: its exit code and its stdout in the shape Claude Code and Codex
 * share, read per event. Output we cannot use is logged and the call goes on.
 */

type HookEvent = RuntimeHookEvent;

/** A hook command as it runs: its timeout in ms. */
export interface CompiledHook {
  command: string;
  timeoutMs: number;
}

export interface PermissionRequestResult {
  /** Absent when no hook decided (the approver is asked). */
  decision?: "allow" | "deny";
  /** The deciding hook's `message` (or, for an exit 2, its stderr). */
  message?: string;
  /** A deny with `interrupt: true`: the whole turn stops, as a person's "abort". */
  interrupt?: boolean;
}

export interface PreToolUseResult {
  /** The strongest opinion given: deny over ask over allow; absent when no hook gave one. */
  decision?: "allow" | "deny" | "ask";
  /** The deciding hook's reason; always set for a deny. */
  reason?: string;
  /** From the first hook in config order that gave one; the caller validates it like the original. */
  updatedInput?: unknown;
}

/** How much of a failing hook's output goes into the log. */
const LOG_OUTPUT_CHARS = 500;
export type PermissionDecision = NonNullable<PreToolUseResult["decision"]>;
export interface PostOpinion {
  block?: { reason: string };
  additionalContext?: string;
}

export const DECISION_RANK = { allow: 1, ask: 2, deny: 3 } as const;
const PERMISSION_DECISIONS: readonly unknown[] = ["allow", "deny", "ask"];
/** Claude Code's older PreToolUse form: top-level `decision` with `reason`. */
const LEGACY_DECISIONS = { approve: "allow", block: "deny" } as const;

/** A hook's output we could not use: logged, and the call goes on. */
class HookOutputError extends Error {}

export function optionalString(value: Record<string, unknown>, key: string): string | undefined {
  const v = value[key];
  if (v !== undefined && typeof v !== "string") throw new HookOutputError(`${key}: expected a string`);
  return v;
}

/** The parsed stdout of a hook that exited 0; undefined when it printed nothing. */
export function stdoutJson(stdout: string): Record<string, unknown> | undefined {
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
export function specificOutput(json: Record<string, unknown>, event: HookEvent): Record<string, unknown> {
  const specific = json["hookSpecificOutput"];
  if (specific === undefined) return {};
  if (!isRecord(specific)) throw new HookOutputError("hookSpecificOutput: expected an object");
  const name = specific["hookEventName"];
  if (name !== undefined && name !== event) {
    throw new HookOutputError(`hookSpecificOutput.hookEventName: expected ${event}`);
  }
  return specific;
}

export function readPreOutput(stdout: string): PreToolUseResult {
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
export function readPermissionOutput(stdout: string): PermissionRequestResult {
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

export function readPostOutput(stdout: string): PostOpinion {
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
export function interpret<T>(
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
