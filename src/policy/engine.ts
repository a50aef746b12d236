import path from "node:path";
import { texts } from "../protocol/index.js";
import { isRecord } from "../util/index.js";
import { CallPaths, isInside } from "./paths.js";
import { reasons } from "./reasons.js";
import { riskAtLeast, riskLevel } from "./risk.js";
import { PermissionRule, type RuleMode } from "./rules.js";
import type { JudgedCommands } from "./reduceCommands.js";
import { judgedCommands } from "./subjectCommands.js";
import { defaultSuggestions, isValidRule } from "./suggest.js";
import type { HookVerdict, PermissionMode, PermissionPolicy, PolicyCall, PolicyVerdict } from "./types.js";

const MODES: ReadonlySet<unknown> = new Set<PermissionMode>(["default", "accept_edits", "read_only", "bypass"]);

/**
 * Rules, mode and session approvals of one session (DESIGN section 11). Create once and pass to
 * every turn's context: approvals answered "allow_session" stay for the later turns. Pure logic:
 * asking, hooks and events are the dispatcher's.
 */
export class PermissionEngine {
  readonly #mode: PermissionMode;
  readonly #allow: readonly PermissionRule[];
  readonly #ask: readonly PermissionRule[];
  readonly #deny: readonly PermissionRule[];
  readonly #session: PermissionRule[] = [];
  readonly #approve: PermissionPolicy["approve"];
  readonly #approvalTimeoutMs: number | undefined;
  readonly #nonInteractive: boolean;
  readonly #riskField: boolean;
  readonly #askAtRisk: "medium" | "high" | undefined;
  /** `askAtRisk` when `riskField` is on: only then does the model give a risk to judge. */
  readonly #riskThreshold: "medium" | "high" | undefined;
  readonly #bypass = Object.freeze(verdict("allow", "mode", reasons.bypass));
  /** The verdict of most calls (nothing mutated, no rule matched), made once. */
  readonly #readsOnly: Readonly<PolicyVerdict>;
  readonly #editInsideRoots = Object.freeze(verdict("allow", "mode", reasons.editInsideRoots));

  /** Parses every rule now: a malformed rule or setting throws, naming it. */
  constructor(policy: PermissionPolicy = {}) {
    const raw: unknown = policy; // from a config file as often as from typed code
    if (!isRecord(raw)) throw new Error("invalid permission policy: expected an object");
    const { mode = "default", approve, approvalTimeoutMs, riskField, askAtRisk, nonInteractive } = policy;
    if (nonInteractive !== undefined && typeof nonInteractive !== "boolean") {
      throw new Error("invalid permission policy: nonInteractive must be a boolean");
    }
    if (!MODES.has(mode)) throw new Error(`invalid permission policy: unknown mode ${JSON.stringify(mode)}`);
    if (approve !== undefined && typeof approve !== "function") {
      throw new Error("invalid permission policy: approve must be a function");
    }
    if (approvalTimeoutMs !== undefined && !(Number.isFinite(approvalTimeoutMs) && approvalTimeoutMs > 0)) {
      throw new Error("invalid permission policy: approvalTimeoutMs must be a positive number of milliseconds");
    }
    if (riskField !== undefined && typeof riskField !== "boolean") {
      throw new Error("invalid permission policy: riskField must be a boolean");
    }
    if (askAtRisk !== undefined && askAtRisk !== "medium" && askAtRisk !== "high") {
      throw new Error(
        `invalid permission policy: askAtRisk must be "medium" or "high", not ${JSON.stringify(askAtRisk)}`,
      );
    }
    this.#mode = mode;
    this.#approve = approve;
    this.#approvalTimeoutMs = approvalTimeoutMs;
    this.#nonInteractive = nonInteractive === true;
    this.#riskField = riskField === true;
    this.#askAtRisk = askAtRisk;
    this.#allow = parseRules(policy.allow, "allow");
    this.#ask = parseRules(policy.ask, "ask");
    this.#deny = parseRules(policy.deny, "deny");
    this.#riskThreshold = this.#riskField ? askAtRisk : undefined;
    this.#readsOnly =
      mode === "bypass" ? this.#bypass : Object.freeze(verdict("allow", "mode", reasons.readsOnly(mode)));
  }

  get mode(): PermissionMode {
    return this.#mode;
  }

  get approve(): PermissionPolicy["approve"] {
    return this.#approve;
  }

  get approvalTimeoutMs(): number | undefined {
    return this.#approvalTimeoutMs;
  }

  get nonInteractive(): boolean {
    return this.#nonInteractive;
  }

  get riskField(): boolean {
    return this.#riskField;
  }

  get askAtRisk(): "medium" | "high" | undefined {
    return this.#askAtRisk;
  }

  /**
   * The verdict on one call, first that applies: hook deny, deny rule, hook ask, ask rule, hook
   * allow, allow rule, session approval, then the mode (with `askAtRisk` over the mode's allows).
   * Verdicts may be shared between calls: they are read-only.
   */
  decide(call: PolicyCall, hook?: HookVerdict): Readonly<PolicyVerdict> {
    const fromHook = hook?.decision;
    if (fromHook === "deny") return verdict("deny", "hook", hook?.reason ?? reasons.hook("deny"));
    const judged = judgedAs(call);
    if (judged !== call) {
      // A patch through the shell is judged as apply_patch, yet a deny of the tool that carries it still holds.
      const carrier = firstMatch(this.#deny, call, "deny", undefined, undefined);
      if (carrier !== undefined) return verdict("deny", "rule", texts.deniedByRule(carrier.rule), carrier.rule);
      call = judged;
    }
    // One normalization of the call's paths, and one reduction of its commands, shared by
    // every rule; none when there is no rule (the mode still reads the commands).
    const subject = call.subject;
    const paths = subject?.paths !== undefined && this.#hasRules() ? new CallPaths(call) : undefined;
    const commands =
      subject !== undefined && (subject.commands !== undefined || subject.scripts !== undefined)
        ? judgedCommands(subject)
        : undefined;
    const deny = firstMatch(this.#deny, call, "deny", paths, commands);
    if (deny !== undefined) return verdict("deny", "rule", texts.deniedByRule(deny.rule), deny.rule);
    if (fromHook === "ask") return verdict("ask", "hook", hook?.reason ?? reasons.hook("ask"));
    const ask = firstMatch(this.#ask, call, "ask", paths, commands);
    if (ask !== undefined) return verdict("ask", "rule", reasons.askRule(ask.rule), ask.rule);
    if (fromHook === "allow") return verdict("allow", "hook", hook?.reason ?? reasons.hook("allow"));
    const allow = firstMatch(this.#allow, call, "allow", paths, commands);
    if (allow !== undefined) return verdict("allow", "rule", reasons.allowRule(allow.rule), allow.rule);
    const session = firstMatch(this.#session, call, "allow", paths, commands);
    if (session !== undefined) return verdict("allow", "session", reasons.session(session.rule), session.rule);
    if (commands !== undefined) {
      const covered = this.#coveredCommandByCommand(call, commands);
      if (covered !== undefined) return covered;
      const unsure = this.#unsureCommands(call, commands);
      if (unsure !== undefined) return unsure;
    }
    const coveredPaths = this.#coveredPathByPath(call);
    if (coveredPaths !== undefined) return coveredPaths;
    return this.#byMode(call);
  }

  /**
   * What the mode may not allow alone: a command run through sudo/doas/su/pkexec, and, while
   * any shell deny or ask rule could speak of the call, a script whose program cannot be known
   * (a rule cannot tell it is not the program it forbids). Read-only mode still denies.
   */
  #unsureCommands(call: PolicyCall, commands: JudgedCommands): Readonly<PolicyVerdict> | undefined {
    if (this.#mode === "read_only" && call.mutating) return undefined;
    if (commands.elevated) return verdict("ask", "mode", reasons.elevated);
    if (commands.opaque.length === 0) return undefined;
    const guarded = [...this.#deny, ...this.#ask].some((r) => r.judgesCommands && r.matchesTool(call.toolName));
    return guarded ? verdict("ask", "mode", reasons.opaque) : undefined;
  }

  /**
   * A script no single allow rule covers is still allowed when each of its plain commands is
   * allowed by some rule (`git add . && git commit -m x` by `git add:*` and `git commit:*`),
   * as Claude Code judges compound commands. Checked after every single rule, so the common
   * case pays nothing.
   */
  #coveredCommandByCommand(call: PolicyCall, judged: JudgedCommands): Readonly<PolicyVerdict> | undefined {
    const commands = judged.commands.filter((c) => !c.wrapper);
    if (commands.length < 2 || judged.opaque.length > 0) return undefined;
    return this.#coveredBy(
      commands.map((command) => {
        const one: JudgedCommands = { commands: [command], opaque: [], elevated: false, needsParser: false };
        return (rule) => rule.matches(call, "allow", undefined, one);
      }),
    );
  }

  /**
   * A file call no single allow rule covers is still allowed when each written and real path is
   * allowed by some rule (`alias/s.txt` by `edit_file(alias/**)` and, through the link,
   * `edit_file(secret/**)`). Only when the real paths were resolved (a path rule could judge).
   */
  #coveredPathByPath(call: PolicyCall): Readonly<PolicyVerdict> | undefined {
    const parts = pathParts(call);
    if (parts === undefined) return undefined;
    return this.#coveredBy(parts.map((one) => (rule) => rule.matches(one, "allow")));
  }

  /** Allowed when every part is matched by some allow or session rule (naming the rules used). */
  #coveredBy(parts: ReadonlyArray<(rule: PermissionRule) => boolean>): Readonly<PolicyVerdict> | undefined {
    const rules = [...this.#allow, ...this.#session];
    if (rules.length === 0) return undefined;
    const used: PermissionRule[] = [];
    for (const part of parts) {
      const rule = rules.find(part);
      if (!rule) return undefined;
      if (!used.includes(rule)) used.push(rule);
    }
    const by = used.every((r) => this.#session.includes(r)) ? "session" : "rule";
    const names = used.map((r) => r.rule).join(", ");
    return verdict("allow", by, by === "session" ? reasons.session(names) : reasons.allowRule(names), names);
  }

  /**
   * Would a path rule judge `call` (a file tool's call, or a patch through the shell)? Only then
   * does the policy stage pay for resolving its real paths before `decide`.
   */
  needsRealPaths(call: PolicyCall): boolean {
    if (!call.subject?.paths?.length) return false;
    const toolName = judgedAs(call).toolName;
    const judges = (rule: PermissionRule): boolean => rule.judgesPaths && rule.matchesTool(toolName);
    return this.#deny.some(judges) || this.#ask.some(judges) || this.#allow.some(judges) || this.#session.some(judges);
  }

  /**
   * What "allow_session" would remember, most specific first: the handler's own suggestions
   * (those that parse as rules) when it gives any, else a default from the call's subject.
   */
  suggestRules(call: PolicyCall, fromHandler?: readonly string[]): string[] {
    const valid = fromHandler?.filter(isValidRule) ?? [];
    return valid.length > 0 ? valid : defaultSuggestions(judgedAs(call));
  }

  /** "allow_session": `rule` joins the allow rules for the rest of the session. Throws if malformed. */
  rememberSession(rule: string): void {
    const parsed = new PermissionRule(rule);
    if (!this.#session.some((known) => known.rule === rule)) this.#session.push(parsed);
  }

  sessionRules(): string[] {
    return this.#session.map((known) => known.rule);
  }

  #hasRules(): boolean {
    return this.#deny.length + this.#ask.length + this.#allow.length + this.#session.length > 0;
  }

  #byMode(call: PolicyCall): Readonly<PolicyVerdict> {
    if (!call.mutating) return this.#readsOnly;
    switch (this.#mode) {
      case "bypass":
        return this.#riskChecked(call, this.#bypass);
      case "read_only":
        return verdict("deny", "mode", texts.deniedReadOnly(call.toolName));
      case "accept_edits":
        if (call.fileEdit !== true) return verdict("ask", "mode", reasons.notAnEdit(call.toolName));
        return editsInsideRoots(call)
          ? this.#riskChecked(call, this.#editInsideRoots)
          : verdict("ask", "mode", reasons.editOutsideRoots(call.toolName));
      case "default":
        return verdict("ask", "mode", reasons.mutating(call.toolName));
    }
  }

  /**
   * `askAtRisk` turns the mode's allow of a mutating call into ask. Only mutating tools' schemas
   * carry `security_risk`, so only their calls are judged by it.
   */
  #riskChecked(call: PolicyCall, allow: Readonly<PolicyVerdict>): Readonly<PolicyVerdict> {
    const threshold = this.#riskThreshold;
    if (threshold === undefined || !riskAtLeast(call.risk, threshold)) return allow;
    return verdict("ask", "mode", reasons.risk(riskLevel(call.risk), threshold));
  }
}

/** The call as the tool its subject names (`asTool`) would be judged: that tool's rules, its name in the texts. */
function judgedAs(call: PolicyCall): PolicyCall {
  const asTool = call.subject?.asTool;
  return asTool === undefined || asTool === call.toolName ? call : { ...call, toolName: asTool };
}

function parseRules(rules: unknown, list: RuleMode): readonly PermissionRule[] {
  if (rules === undefined) return [];
  if (!Array.isArray(rules)) throw new Error(`invalid permission policy: ${list} must be an array of rules`);
  return rules.map((rule: unknown) => {
    if (typeof rule !== "string")
      throw new Error(`invalid permission rule in ${list}: ${String(rule)} is not a string`);
    return new PermissionRule(rule);
  });
}

function firstMatch(
  rules: readonly PermissionRule[],
  call: PolicyCall,
  mode: RuleMode,
  paths: CallPaths | undefined,
  commands: JudgedCommands | undefined,
): PermissionRule | undefined {
  for (const rule of rules) if (rule.matches(call, mode, paths, commands)) return rule;
  return undefined;
}

/** Every path edited lies in a writable root (default: cwd), after `path.resolve` against cwd. */
function editsInsideRoots(call: PolicyCall): boolean {
  const paths = call.subject?.paths;
  if (paths === undefined || paths.length === 0) return false;
  const roots = (call.writableRoots ?? [call.cwd]).map((root) => path.resolve(call.cwd, root));
  return paths.every((p) => {
    const abs = path.resolve(call.cwd, p);
    return roots.some((root) => isInside(root, abs));
  });
}

function verdict(
  decision: PolicyVerdict["decision"],
  by: PolicyVerdict["by"],
  reason: string,
  rule?: string,
): Readonly<PolicyVerdict> {
  return rule === undefined ? { decision, by, reason } : { decision, by, reason, rule };
}

/**
 * A file call split into one call per written and real path, when the real paths are known;
 * undefined otherwise.
 */
function pathParts(call: PolicyCall): PolicyCall[] | undefined {
  const subject = call.subject;
  const written = subject?.paths;
  const real = call.realPaths;
  if (written === undefined || real === undefined) return undefined;
  const { realPaths: _real, ...rest } = call;
  const one = (p: string, cwd: string): PolicyCall => ({ ...rest, cwd, subject: { ...subject, paths: [p] } });
  return [...written.map((p) => one(p, call.cwd)), ...real.paths.map((p) => one(p, real.cwd))];
}
