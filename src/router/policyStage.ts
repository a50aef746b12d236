import {
  texts,
  type ApprovalDecision,
  type ApprovalRequest,
  type DecidedBy,
  type EscalationRequest,
  type HookConfig,
  type HookVerdict,
  type OutputBody,
  type PolicyCall,
  type PolicyVerdict,
} from "../protocol/index.js";
import {
  blockedCommand,
  hooksFor,
  prepareSubject,
  resolveRealPaths,
  type HookCallContext,
  type Hooks,
} from "../policy/index.js";
import { validateArguments, type RegisteredTool, type ToolInvocation } from "../registry/index.js";
import { approvalBroker, emitEvent, type TurnContext } from "../turn/index.js";
import { environmentOf } from "../sandbox/index.js";
import { errorText } from "../util/index.js";
import type { Invocation } from "./invocation.js";
import type { DispatchOptions } from "./router.js";

/** What the policy stage lets through: the invocation (its arguments maybe rewritten by a hook), or the answer. */
export type PolicyOutcome<Ctx> = { invocation: Invocation<Ctx> } | { text: string };

const SUMMARY_CHARS = 500;
const DECISIONS = new Set(["allow", "allow_session", "deny", "abort"]);

/**
 * Steps c and d of DESIGN section 3: PreToolUse hooks (deny, ask, allow, rewrite the
 * arguments, validated again), then the permission decision, asking a person when it says so.
 * The call holds its lock slot while it waits (invariant 3). Runs only when the turn carries
 * a permission engine or hooks.
 */
export async function policyStage<Ctx>(
  tool: RegisteredTool<Ctx>,
  invocation: Invocation<Ctx>,
  mutating: boolean,
  risk: unknown,
  dispatch: Pick<DispatchOptions<Ctx>, "abortTurn">,
  sessionId?: string,
): Promise<PolicyOutcome<Ctx>> {
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
  if (verdict.decision === "allow") return { invocation };
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
  const { decision, by, text } = fromHook ?? (await ask(turn, request, invocation.signal));
  decided(turn, invocation, decision.decision, by, decision.message);
  switch (decision.decision) {
    case "allow":
      return { invocation };
    case "allow_session": {
      // Nothing to remember (an unparsable script suggests no rule): a plain allow, never the
      // bare tool name, which would allow every later call of the tool.
      const rule = request.suggestedRules[0];
      if (rule !== undefined) engine?.rememberSession(rule);
      return { invocation };
    }
    case "abort": {
      // At the moment of the decision: no other call may start after a person said abort.
      const answer = text ?? texts.rejectedByUser(decision.message);
      dispatch.abortTurn?.(answer);
      return { text: answer };
    }
    default:
      return { text: text ?? texts.rejectedByUser(decision.message) };
  }
}

/** What every hook of this call reads: the call, the turn's place, the session. */
function hookContext<Ctx>(invocation: Invocation<Ctx>, sessionId: string | undefined): HookCallContext {
  const { turn } = invocation;
  return {
    toolName: invocation.toolName,
    toolInput: invocation.args,
    toolUseId: invocation.callId,
    cwd: turn.cwd,
    environment: environmentOf(turn),
    signal: invocation.signal,
    logger: turn.logger,
    sessionId,
    transcriptPath: turn.transcriptPath,
    permissionMode: turn.permissions?.mode ?? "bypass",
  };
}

/**
 * PermissionRequest hooks, asked before the approver (as Claude Code asks them before its
 * dialog): their allow or deny answers the call; no decision leaves it to the approver.
 */
async function permissionRequest<Ctx>(
  hooks: Hooks,
  invocation: Invocation<Ctx>,
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

/**
 * A handler's request to step past the sandbox (DESIGN section 12): asked as
 * `sandbox_escalation` in every mode, `bypass` included; never granted without a permission
 * engine, and only a person's allow grants it (an "allow_session" grants this call only, and remembers the
 * request's suggested rules as session allow rules).
 */
export async function escalate<Ctx>(
  invocation: Invocation<Ctx>,
  req: EscalationRequest,
  dispatch: Pick<DispatchOptions<Ctx>, "abortTurn">,
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
  const { decision, by } = await ask(turn, request, invocation.signal);
  decided(turn, invocation, decision.decision, by, decision.message);
  if (decision.decision === "allow_session")
    for (const rule of request.suggestedRules) turn.permissions.rememberSession(rule);
  if (decision.decision === "abort") dispatch.abortTurn?.(texts.rejectedByUser(decision.message));
  return decision.decision === "allow" || decision.decision === "allow_session";
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

/**
 * "Ask" goes to `policy.approve` when given; otherwise to an `approval_request` event answered
 * by `runtime.respondToApproval`; with neither, it is answered at once (the no-approver rule).
 * A denial nobody chose (timeout, no approver, a failing approver) carries its own `text`.
 */
async function ask(
  turn: TurnContext,
  request: ApprovalRequest,
  signal: AbortSignal,
): Promise<{ decision: ApprovalDecision; by: DecidedBy; text?: string }> {
  const approve = turn.permissions?.approve;
  if (!approve && (!turn.onEvent || turn.permissions?.nonInteractive === true))
    return { decision: { decision: "deny" }, by: "no_approver", text: texts.noApprover };
  const timeoutMs = turn.permissions?.approvalTimeoutMs;
  const limit = timeoutMs === undefined ? undefined : AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
  const waitOn = limit ?? signal;
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
    return { decision: checked(answer), by: "user" };
  } catch (err) {
    // The call's own abort is the runtime's to answer.
    if (signal.aborted) throw err;
    if (timeoutMs !== undefined && waitOn.aborted) {
      return { decision: { decision: "deny" }, by: "timeout", text: texts.noApprovalInTime(timeoutMs) };
    }
    const message = `the approver failed: ${errorText(err) ?? "unknown error"}`;
    turn.logger.warn({ callId: request.callId, message }, "the call is denied");
    return { decision: { decision: "deny", message }, by: "user" };
  }
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

function decided(
  turn: TurnContext,
  inv: ToolInvocation,
  decision: ApprovalDecision["decision"],
  by: DecidedBy,
  message?: string,
): void {
  if (!turn.onEvent) return;
  emitEvent(turn, {
    type: "approval_decided",
    callId: inv.callId,
    toolName: inv.toolName,
    decision,
    by,
    ...(message !== undefined && { message }),
  });
}

/**
 * Step g: PostToolUse hooks may block what the model sees (the answer becomes their reason) or
 * add context to it. Returns the body to answer with, or the blocked text.
 */
export async function postToolUse<Ctx>(
  config: HookConfig,
  invocation: Invocation<Ctx>,
  body: OutputBody,
  sessionId?: string,
): Promise<OutputBody | string> {
  const hooks = hooksFor(config);
  const { toolName } = invocation;
  const failed = body.success === false && hooks.has("PostToolUseFailure", toolName);
  if (!hooks.hasPost(toolName) && !failed) return body;
  const ctx = hookContext(invocation, sessionId);
  const additionalContext: string[] = [];
  if (hooks.hasPost(toolName)) {
    const post = await hooks.runPostToolUse({
      ...ctx,
      toolResponse: { output: body.body, success: body.success !== false },
    });
    if (post.block) return texts.postToolUseBlocked(post.block.reason);
    additionalContext.push(...post.additionalContext);
  }
  if (failed) additionalContext.push(...(await postToolUseFailure(config, invocation, bodyText(body), sessionId)));
  if (additionalContext.length === 0) return body;
  const extra = additionalContext.join("\n");
  const withContext: OutputBody["body"] =
    typeof body.body === "string" ? `${body.body}\n\n${extra}` : [...body.body, { type: "input_text", text: extra }];
  // A shell call's structured answer has no place for the context: it is answered as text.
  return { ...body, body: withContext, shellCall: undefined };
}

/**
 * Claude Code's PostToolUseFailure: after a call whose handler failed (threw, or answered
 * `success: false`), with the failure's text as `error`. Returns the context the hooks add for
 * the model (these hooks cannot block: the call already failed).
 */
export async function postToolUseFailure<Ctx>(
  config: HookConfig,
  invocation: Invocation<Ctx>,
  error: string,
  sessionId: string | undefined,
): Promise<string[]> {
  const hooks = hooksFor(config);
  if (!hooks.has("PostToolUseFailure", invocation.toolName)) return [];
  return hooks.runPostToolUseFailure({ ...hookContext(invocation, sessionId), error });
}

/** The text of an answer (its text parts, for a content list). */
function bodyText(body: OutputBody): string {
  if (typeof body.body === "string") return body.body;
  return body.body.flatMap((part) => ("text" in part && typeof part.text === "string" ? [part.text] : [])).join("\n");
}
