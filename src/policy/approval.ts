import { texts, type ApprovalDecision, type ApprovalRequest, type DecidedBy } from "../protocol/index.js";
import { emitEvent, turnBroker, type ResponseBroker, type TurnContext } from "../turn/index.js";
import { errorText } from "../util/index.js";

/** A person's decision, who made it, and the text a denial nobody chose answers with. */
export interface Approval {
  decision: ApprovalDecision;
  by: DecidedBy;
  text?: string;
}

const DECISIONS = new Set(["allow", "allow_session", "deny", "abort"]);
const APPROVALS = Symbol("approval decisions");

function approvalBroker(turn: TurnContext): ResponseBroker<ApprovalDecision> {
  return turnBroker(turn, APPROVALS);
}

/** `runtime.respondToApproval`: answers a call waiting for approval; false if none is waiting. */
export function respondToApproval(turn: TurnContext, callId: string, decision: ApprovalDecision): boolean {
  return approvalBroker(turn).respond(callId, decision);
}

/**
 * Asks a person (DESIGN section 11): `policy.approve` when given; otherwise an
 * `approval_request` event answered by `runtime.respondToApproval`; with neither, it is
 * answered at once (the no-approver rule). `approvalTimeoutMs` bounds the wait. A denial nobody
 * chose (timeout, no approver, a failing approver) carries its own `text`. Rejects only when
 * `signal` (the call's own abort) aborts: that is the runtime's to answer.
 */
export async function askPerson(turn: TurnContext, request: ApprovalRequest, signal: AbortSignal): Promise<Approval> {
  // A resumed turn already holds the person's answer: it is not asked twice.
  const recorded = turn.callJournal?.recordedApproval(request.callId);
  if (recorded) return { decision: recorded, by: "user" };
  const approve = turn.permissions?.approve;
  if (!approve && (!turn.onEvent || turn.permissions?.nonInteractive === true))
    return { decision: { decision: "deny" }, by: "no_approver", text: texts.noApprover };
  const timeoutMs = turn.permissions?.approvalTimeoutMs;
  const limit = timeoutMs === undefined ? undefined : AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
  const waitOn = limit ?? signal;
  turn.callJournal?.approvalRequested(request.callId);
  try {
    let answer: unknown;
    if (approve) {
      answer = await Promise.race([approve(request, waitOn), rejectOnAbort(waitOn)]);
      if (answer === undefined) return { decision: { decision: "deny" }, by: "no_approver", text: texts.noApprover };
    } else {
      const pending = approvalBroker(turn).wait(request.callId, waitOn);
      emitEvent(turn, { type: "approval_request", callId: request.callId, toolName: request.toolName, request });
      answer = await pending;
    }
    const decision = checked(answer);
    turn.callJournal?.approvalDecided(request.callId, decision);
    return { decision, by: "user" };
  } catch (err) {
    if (signal.aborted) throw err;
    if (timeoutMs !== undefined && waitOn.aborted) {
      return { decision: { decision: "deny" }, by: "timeout", text: texts.noApprovalInTime(timeoutMs) };
    }
    const message = `the approver failed: ${errorText(err) ?? "unknown error"}`;
    turn.logger.warn({ callId: request.callId, message }, "the call is denied");
    return { decision: { decision: "deny", message }, by: "user" };
  }
}

/** The `approval_decided` event (only when someone listens). */
export function decided(
  turn: TurnContext,
  call: { callId: string; toolName: string },
  decision: ApprovalDecision["decision"],
  by: DecidedBy,
  message?: string,
): void {
  if (!turn.onEvent) return;
  emitEvent(turn, {
    type: "approval_decided",
    callId: call.callId,
    toolName: call.toolName,
    decision,
    by,
    ...(message !== undefined && { message }),
  });
}

function rejectOnAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else
      signal.addEventListener(
        "abort",
        () => {
          reject(signal.reason);
        },
        { once: true },
      );
  });
}

/** An approver's answer from outside: anything but a known decision is a denial. */
function checked(answer: unknown): ApprovalDecision {
  if (typeof answer !== "object" || answer === null) return { decision: "deny", message: "invalid approval decision" };
  const { decision, message } = answer as { decision?: unknown; message?: unknown };
  if (typeof decision !== "string" || !DECISIONS.has(decision))
    return { decision: "deny", message: "invalid approval decision" };
  return typeof message === "string" && message !== ""
    ? { decision: decision as ApprovalDecision["decision"], message }
    : { decision: decision as ApprovalDecision["decision"] };
}
