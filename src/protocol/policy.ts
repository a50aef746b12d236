/**
 * The policy stage's data (DESIGN section 11): modes, rules, approvals, hooks. Plain types,
 * here so a turn can carry a policy (`TurnContext.permissions`, `.hooks`) and approvals can
 * travel over the wire; the engine and the hook runner are `src/policy`.
 */

export type PermissionMode = "default" | "accept_edits" | "read_only" | "bypass";

export type RiskLevel = "low" | "medium" | "high";

export interface ApprovalRequest {
  callId: string;
  toolName: string;
  kind: "tool" | "sandbox_escalation";
  /** What a person reads: the command line, the patch's paths, or the tool name and its arguments (JSON, at most 500 chars). */
  summary: string;
  args: unknown;
  mutating: boolean;
  /** Why it is asked: the rule, the mode, the hook, the sandbox. */
  reason: string;
  /** What "allow_session" would remember, e.g. "shell(git commit:*)". */
  suggestedRules: string[];
}

export interface ApprovalDecision {
  decision: "allow" | "allow_session" | "deny" | "abort";
  message?: string;
}

export interface PermissionPolicy {
  /** Default "default". */
  mode?: PermissionMode;
  /** Rules: `Tool` or `Tool(specifier)`; `Tool` may use `*` over tool names. */
  allow?: string[];
  ask?: string[];
  deny?: string[];
  /**
   * Answers "ask"; without it, an `approval_request` event and `runtime.respondToApproval`.
   * Resolving undefined says nobody can answer this request (an MCP client without
   * elicitation): the no-approver rule applies.
   */
  approve?: (req: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision | undefined>;
  /** None by default. */
  approvalTimeoutMs?: number;
  /**
   * Nobody answers approvals (a batch run, `toolcall exec`): "ask" follows the no-approver
   * rule even when the turn has an `onEvent` listener. Default false.
   */
  nonInteractive?: boolean;
  /** Mutating tools' schemas gain a required `security_risk` (OpenHands' risk prediction). */
  riskField?: boolean;
  /** With `riskField`: an allow from the mode becomes ask at or above this level. */
  askAtRisk?: "medium" | "high";
}

/**
 * A handler asking to step past the sandbox for this call (DESIGN section 12): an
 * `ApprovalRequest` of kind `sandbox_escalation`. Only a person's allow grants it.
 */
export interface EscalationRequest {
  /** Why, in one sentence: `command failed in the sandbox; ...`, `{path} is outside the writable roots; ...`. */
  reason: string;
  /** What a person reads: the command line, the paths. */
  summary: string;
  /**
   * Rules "allow_session" would remember besides granting this call (exec_command's judged
   * `prefix_rule`); none by default: the grant counts for this call only.
   */
  suggestedRules?: string[];
}

/** Who decided a call: the `by` of `approval_decided`. */
export type DecidedBy = "rule" | "mode" | "hook" | "session" | "user" | "timeout" | "no_approver";

/** The rule-and-mode verdict on one call, before anyone is asked. */
export interface PolicyVerdict {
  decision: "allow" | "deny" | "ask";
  by: "rule" | "mode" | "hook" | "session";
  /** The rule that decided, as written (for the deny text and the approval reason). */
  rule?: string;
  /** Why, in one sentence (the approval request's `reason`, or the denial the model reads). */
  reason: string;
}

/**
 * What the policy stage judges a call by, from the handler that knows its arguments: the
 * commands a shell tool runs, the paths a file tool touches, and what a person reads.
 */
export interface PolicySubject {
  /**
   * Shell tools: the argv lists the call runs, as written (`["bash", "-lc", "git status"]`);
   * the policy stage parses their scripts and reduces every command to what it runs (DESIGN
   * section 11, "Rules judge what runs"). `null`: a script that cannot be judged at all (judged
   * by `summary`, never allowed by a rule).
   */
  commands?: string[][] | null;
  /**
   * Shell tools: scripts the tool itself hands to a shell (`exec_command`'s `cmd`, a line typed
   * into a shell session), judged as `commands` judge a `-c` script.
   */
  scripts?: string[];
  /** File tools: every path the call reads or writes, as the model wrote it. */
  paths?: string[];
  /** What a person reads in an approval request: the command line, the patch's paths. */
  summary?: string;
  /**
   * Judge the call by the rules of this tool instead of its own: a shell call that runs
   * `apply_patch` (the shell tools apply it themselves) is judged as `apply_patch`, by its `paths`.
   */
  asTool?: string;
}

/** One call as the permission engine sees it. */
export interface PolicyCall {
  toolName: string;
  subject?: PolicySubject | undefined;
  /** `handler.isMutating(inv)` (MCP tools: mutating unless `readOnlyHint`). */
  mutating: boolean;
  /** The call writes files (apply_patch, edit_file, write_file): `accept_edits` may allow it. */
  fileEdit?: boolean;
  cwd: string;
  /** Where `accept_edits` may write; default `[cwd]`. */
  writableRoots?: string[];
  /** The handler's `matchRule`, bound to this call: rules for plugin tools. */
  matchRule?: (specifier: string) => boolean;
  /** The model's `security_risk` when `riskField` is on; anything else counts as high. */
  risk?: unknown;
  /**
   * Where `subject.paths` really land (symlinks resolved), absolute, and the real cwd: set by
   * the policy stage when a path rule could judge the call (`needsRealPaths`).
   */
  realPaths?: { cwd: string; paths: readonly string[] };
}

/** What a PreToolUse hook said about a call before it runs. */
export interface HookVerdict {
  decision: "allow" | "deny" | "ask";
  /** The hook's `permissionDecisionReason`: the verdict's reason when given. */
  reason?: string | undefined;
}

/**
 * The permission engine as a turn carries it (`PermissionEngine` in `src/policy` implements
 * it; a turn holds the session's engine, so "allow_session" outlives the turn).
 */
export interface PermissionDecider {
  readonly mode: PermissionMode;
  readonly approve?: PermissionPolicy["approve"];
  readonly approvalTimeoutMs?: number | undefined;
  readonly nonInteractive?: boolean | undefined;
  readonly riskField: boolean;
  readonly askAtRisk?: "medium" | "high" | undefined;
  decide(call: PolicyCall, hook?: HookVerdict): PolicyVerdict;
  /** Would a path rule judge this call? Then the caller resolves `call.realPaths` first (async). */
  needsRealPaths?(call: PolicyCall): boolean;
  suggestRules(call: PolicyCall, fromHandler?: string[]): string[];
  rememberSession(rule: string): void;
}

/** Hooks in the format Claude Code and Codex share (`hooks.json`). */
export interface HookCommand {
  type: "command";
  command: string;
  /** Seconds; default 60. */
  timeout?: number;
}

export interface HookMatcher {
  /** A regular expression matched against the whole tool name; empty or `*`: every tool. */
  matcher?: string;
  hooks: HookCommand[];
}

/** The hook events the runtime fires itself (DESIGN section 11). */
export type RuntimeHookEvent = "PreToolUse" | "PostToolUse" | "PostToolUseFailure" | "PermissionRequest";

/**
 * Claude Code's events a tool runtime never has (a prompt, a stop, a compaction, a session's
 * start and end, a notification): they load, are warned about once, and are kept for the
 * embedder (`embedderHooks(config, event)`), which owns those moments.
 */
export type EmbedderHookEvent =
  "UserPromptSubmit" | "Stop" | "SubagentStop" | "PreCompact" | "SessionStart" | "SessionEnd" | "Notification";

export type HookEventName = RuntimeHookEvent | EmbedderHookEvent;

/** Hooks by event, in the `hooks.json` / `.claude/settings.json` shape. */
export type HookConfig = { [E in HookEventName]?: HookMatcher[] };
