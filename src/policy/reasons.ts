import type { PermissionMode, RiskLevel } from "./types.js";

/**
 * Why a call is allowed or asked, in one sentence a person reads in an approval request. The
 * denials the model reads are in protocol/texts (`deniedByRule`, `deniedReadOnly`).
 */
export const reasons = {
  allowRule: (rule: string): string => `rule "${rule}" allows this call`,
  askRule: (rule: string): string => `rule "${rule}" asks for approval of this call`,
  session: (rule: string): string => `rule "${rule}" was approved for this session`,
  hook: (decision: "allow" | "deny" | "ask"): string =>
    decision === "allow"
      ? "a PreToolUse hook allows this call"
      : decision === "deny"
        ? "a PreToolUse hook denies this call"
        : "a PreToolUse hook asks for approval of this call",
  readsOnly: (mode: PermissionMode): string => `${modeName(mode)} allows calls that change nothing`,
  bypass: "bypass mode allows every call",
  editInsideRoots: "accept_edits mode allows file edits inside the writable roots",
  editOutsideRoots: (tool: string): string =>
    `${tool} edits files outside the writable roots, which accept_edits mode asks about`,
  notAnEdit: (tool: string): string =>
    `${tool} may change files or state and is not a file edit, which accept_edits mode asks about`,
  mutating: (tool: string): string => `${tool} may change files or state, which default mode asks about`,
  elevated: "the command runs with another user's rights (sudo, doas, su, pkexec), which is always asked about",
  opaque:
    "part of this command is known only when it runs (eval, a variable or glob as the program, a script the grammar cannot read), so the shell rules cannot judge it",
  risk: (level: RiskLevel | undefined, threshold: "medium" | "high"): string =>
    level === undefined
      ? "the model gave no valid security_risk for this call, which counts as high"
      : `the model rates this call's risk ${level}, at or above the "${threshold}" threshold`,
} as const;

function modeName(mode: PermissionMode): string {
  return mode === "read_only" ? "read-only mode" : `${mode} mode`;
}
