import type {
  EmbedderHookEvent,
  HookCommand,
  HookConfig,
  HookEventName,
  HookMatcher,
  RuntimeHookEvent,
} from "../protocol/index.js";
import { errorMessage, isRecord } from "../util/index.js";
import { claudeNamesOf } from "./claudeTools.js";

/*
 * A hook config (DESIGN section 11) as `hooks.json`, `[hooks]` or a `.claude/settings.json`
 * block gives it: checked key by key, its matchers compiled.
 */

const RUNTIME_EVENTS: readonly RuntimeHookEvent[] = [
  "PreToolUse",
  "PermissionRequest",
  "PostToolUse",
  "PostToolUseFailure",
];
const EMBEDDER_HOOK_EVENTS: readonly EmbedderHookEvent[] = [
  "UserPromptSubmit",
  "Stop",
  "SubagentStop",
  "PreCompact",
  "SessionStart",
  "SessionEnd",
  "Notification",
];
const EVENTS: readonly HookEventName[] = [...RUNTIME_EVENTS, ...EMBEDDER_HOOK_EVENTS];
const MATCHER_KEYS = ["matcher", "hooks"];
const COMMAND_KEYS = ["type", "command", "timeout"];

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
