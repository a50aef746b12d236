import type { PolicySubject } from "../registry/index.js";

/**
 * The policy stage's contract (DESIGN section 11): modes, rules, approvals. Session objects:
 * a `PermissionEngine` is created once and passed to every turn's context.
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
  /** Answers "ask"; without it, an `approval_request` event and `runtime.respondToApproval`. */
  approve?: (req: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>;
  /** None by default. */
  approvalTimeoutMs?: number;
  /** Mutating tools' schemas gain a required `security_risk` (OpenHands' risk prediction). */
  riskField?: boolean;
  /** With `riskField`: an allow from the mode becomes ask at or above this level. */
  askAtRisk?: "medium" | "high";
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

/** One call as the permission engine judges it: what the dispatcher knows before the handler runs. */
export interface PolicyCall {
  toolName: string;
  /** From `handler.policySubject(inv)`: the commands or paths the call touches. */
  subject?: PolicySubject | undefined;
  /** `handler.isMutating(inv)` (MCP tools: mutating unless `readOnlyHint`). */
  mutating: boolean;
  /** The call edits files (`apply_patch`, `edit_file`, `write_file`): what `accept_edits` allows. */
  fileEdit?: boolean;
  /** The turn's cwd: relative paths and globs are resolved against it. */
  cwd: string;
  /** Where `accept_edits` lets edits land; default `[cwd]`. Resolved against cwd. */
  writableRoots?: string[];
  /** `handler.matchRule(specifier, inv)` bound to this call: rules for plugin tools. */
  matchRule?: (specifier: string) => boolean;
  /** The model's `security_risk` argument, unchecked (`riskField`). */
  risk?: unknown;
}
