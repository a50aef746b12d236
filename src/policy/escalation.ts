import { texts, type ApprovalRequest, type EscalationRequest } from "../protocol/index.js";
import type { ToolInvocation } from "../registry/index.js";
import { askPerson, decided } from "./approval.js";

/** Who ends the turn when a person answers "abort" (the dispatched call, reporting to its runtime). */
export interface TurnAborter {
  abortTurn(text: string): void;
}

/**
 * A handler's request to step past the sandbox (DESIGN section 12; `inv.escalate`): asked as
 * `sandbox_escalation` in every mode, `bypass` included; never granted without a permission
 * engine, and only a person's allow grants it (an "allow_session" grants this call only, and
 * remembers the request's suggested rules as session allow rules).
 */
export async function escalate<Ctx>(
  invocation: ToolInvocation<Ctx>,
  req: EscalationRequest,
  aborter: TurnAborter,
): Promise<boolean> {
  const { turn, callId, toolName } = invocation;
  if (!turn.permissions) return false;
  const request: ApprovalRequest = {
    callId,
    toolName,
    kind: "sandbox_escalation",
    summary: req.summary,
    args: invocation.args,
    mutating: true,
    reason: req.reason,
    suggestedRules: req.suggestedRules ?? [],
  };
  const { decision, by } = await askPerson(turn, request, invocation.signal);
  decided(turn, invocation, decision.decision, by, decision.message);
  if (decision.decision === "allow_session")
    for (const rule of request.suggestedRules) turn.permissions.rememberSession(rule);
  if (decision.decision === "abort") aborter.abortTurn(texts.rejectedByUser(decision.message));
  return decision.decision === "allow" || decision.decision === "allow_session";
}
