import {
  texts,
  type ApprovalDecision,
  type ApprovalRequest,
  type DecidedBy,
  type HookVerdict,
  type PolicyCall,
  type PolicyVerdict,
} from "../protocol/index.js";
import { validateArguments, type CallLanding, type RegisteredTool, type ToolInvocation } from "../registry/index.js";
import { askPerson, decided } from "./approval.js";
import type { TurnAborter } from "./escalation.js";
import { hookContext } from "./hookCall.js";
import { blockedCommand, hooksFor, type Hooks } from "./hooks.js";
import { landingOf } from "./landing.js";
import { resolveRealPaths } from "./paths.js";
import { prepareSubject } from "./subjectCommands.js";

/** An invocation the stage can hand on with other arguments (a PreToolUse hook's rewrite). */
export interface RewritableInvocation<Ctx, I> extends ToolInvocation<Ctx> {
  withArgs(args: unknown): I;
  /** The same call, carrying where its paths were judged to land. */
  withLanding(landing: CallLanding): I;
}

/** What the policy stage lets through: the invocation (its arguments maybe rewritten by a hook), or the answer. */
export type PolicyOutcome<I> = { invocation: I } | { text: string };

const SUMMARY_CHARS = 500;
/**
 * Steps c and d of DESIGN section 3: PreToolUse hooks (deny, ask, allow, rewrite the
 * arguments, validated again), then the permission decision, asking a person when it says so.
 * The call holds its lock slot while it waits (invariant 3). Runs only when the turn carries
 * a permission engine or hooks.
 */
export async function policyStage<Ctx, I extends RewritableInvocation<Ctx, I>>(
  tool: RegisteredTool<Ctx>,
  invocation: I,
  mutating: boolean,
  risk: unknown,
  aborter: TurnAborter,
  sessionId?: string,
): Promise<PolicyOutcome<I>> {
  const { turn, toolName, callId } = invocation;
  const hooks: Hooks | undefined = turn.hooks ? hooksFor(turn.hooks) : undefined;
  let hook: HookVerdict | undefined;
  if (hooks?.hasPre(toolName)) {
    const pre = await hooks.runPreToolUse(hookContext(invocation, sessionId));
    if (pre.updatedInput !== undefined) {
      validateArguments(toolName, pre.updatedInput, tool.validate);
      invocation = invocation.withArgs(pre.updatedInput);
    }
    if (pre.decision === "deny") {
      decided(turn, invocation, "deny", "hook");
      const reason = pre.reason ?? "denied";
      return { text: texts.preToolUseBlocked(reason, blockedCommand(toolName, invocation.args), toolName) };
    }
    if (pre.decision)
      hook = pre.reason === undefined ? { decision: pre.decision } : { decision: pre.decision, reason: pre.reason };
  }

  const { handler } = tool;
  const engine = turn.permissions;
  const policyCall: PolicyCall = {
    toolName,
    subject: handler.policySubject?.(invocation),
    mutating,
    cwd: turn.cwd,
    risk,
  };
  // The first script that needs the bash grammar waits for it to load, once per process.
  const loading = engine ? prepareSubject(policyCall.subject) : undefined;
  if (loading !== undefined) await loading;
  if (policyCall.subject?.paths && mutating) policyCall.fileEdit = true;
  // accept_edits may edit where the sandbox lets the call write (the sandbox still checks each path).
  const sandbox = turn.environment?.sandbox;
  if (sandbox?.mode === "workspace-write") policyCall.writableRoots = [turn.cwd, ...sandbox.writableRoots];
  if (handler.matchRule) {
    const match = handler.matchRule.bind(handler);
    policyCall.matchRule = (specifier) => match(specifier, invocation);
  }
  // Path rules judge where the call really lands too; only a call a path rule could judge pays for it.
  const paths = policyCall.subject?.paths;
  if (paths !== undefined && engine?.needsRealPaths?.(policyCall) === true) {
    policyCall.realPaths = await resolveRealPaths(paths, turn.cwd);
  }
  const verdict: PolicyVerdict = engine
    ? engine.decide(policyCall, hook)
    : {
        decision: hook?.decision ?? "allow",
        by: "hook",
        reason: hook?.reason ?? "a PreToolUse hook asked for approval",
      };
  // What an allow lets through: with its paths judged where they land, the handler checks what it opens against that.
  const judged = policyCall.realPaths;
  const allowed = (): PolicyOutcome<I> => ({
    invocation:
      engine && judged ? invocation.withLanding(landingOf(engine, { ...policyCall, realPaths: judged })) : invocation,
  });
  if (verdict.decision === "allow") return allowed();
  if (verdict.decision === "deny") {
    decided(turn, invocation, "deny", verdict.by);
    return { text: verdict.reason };
  }

  const suggested = handler.suggestRules?.(invocation);
  const request: ApprovalRequest = {
    callId,
    toolName,
    kind: "tool",
    summary: policyCall.subject?.summary ?? summarize(toolName, invocation.args),
    args: invocation.args,
    mutating,
    reason: verdict.reason,
    suggestedRules: engine ? engine.suggestRules(policyCall, suggested) : (suggested ?? []),
  };
  const fromHook = hooks?.has("PermissionRequest", toolName)
    ? await permissionRequest(hooks, invocation, sessionId)
    : undefined;
  const { decision, by, text } = fromHook ?? (await askPerson(turn, request, invocation.signal));
  decided(turn, invocation, decision.decision, by, decision.message);
  switch (decision.decision) {
    case "allow":
      return allowed();
    case "allow_session": {
      // Nothing to remember (an unparsable script suggests no rule): a plain allow, never the
      // bare tool name, which would allow every later call of the tool.
      const rule = request.suggestedRules[0];
      if (rule !== undefined) engine?.rememberSession(rule);
      return allowed();
    }
    case "abort": {
      // At the moment of the decision: no other call may start after a person said abort.
      const answer = text ?? texts.rejectedByUser(decision.message);
      aborter.abortTurn(answer);
      return { text: answer };
    }
    default:
      return { text: text ?? texts.rejectedByUser(decision.message) };
  }
}

/**
 * PermissionRequest hooks, asked before the approver (as Claude Code asks them before its
 * dialog): their allow or deny answers the call; no decision leaves it to the approver.
 */
async function permissionRequest<Ctx>(
  hooks: Hooks,
  invocation: ToolInvocation<Ctx>,
  sessionId: string | undefined,
): Promise<{ decision: ApprovalDecision; by: DecidedBy; text?: string } | undefined> {
  const answer = await hooks.runPermissionRequest(hookContext(invocation, sessionId));
  if (answer.decision === undefined) return undefined;
  const message = answer.message === undefined ? {} : { message: answer.message };
  if (answer.decision === "allow") return { decision: { decision: "allow", ...message }, by: "hook" };
  return {
    decision: { decision: answer.interrupt === true ? "abort" : "deny", ...message },
    by: "hook",
    text: texts.permissionRequestDenied(answer.message),
  };
}

/** The tool name and its arguments, for a person (JSON, at most 500 chars). */
function summarize(toolName: string, args: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(args) ?? "";
  } catch {
    json = "";
  }
  const text = `${toolName} ${json}`.trimEnd();
  return text.length > SUMMARY_CHARS ? `${text.slice(0, SUMMARY_CHARS - 1)}…` : text;
}
