import {
  FunctionCallError,
  outputBody,
  texts,
  type OutputBody,
  type ResponseInputItem,
  type ToolOutput,
} from "../protocol/index.js";
import { policyStage, postToolUse, postToolUseFailure } from "../policy/index.js";
import { handlerMatchesKind, type RegisteredTool } from "../registry/index.js";
import { suggestTool, withRepairNote } from "../repair/index.js";
import { emitEvent, overBudget, truncateBodySpilling } from "../turn/index.js";
import { now } from "../util/index.js";
import { answerItem, failureItem, failureText } from "./answer.js";
import { callArguments, takeRisk } from "./arguments.js";
import { Invocation } from "./invocation.js";
import { runMiddleware } from "./middleware.js";
import type { DispatchHost, PreparedCall } from "./preparedCall.js";

/*
 * The pipeline of DESIGN section 3, steps a-h, as named steps handing on to the next by
 * callback rather than as one async function: `dispatch` (a tool to run?), `check` (kind,
 * arguments; `admit` when something may wait before the handler), `start` (middleware and
 * handler), `handled` (PostToolUse, truncation, the output item). A plain allowed call (no
 * policy, classified at once, the gate open) makes no promise but the handler's own. Every
 * path ends in exactly one `settle` or one `host.failed`.
 */

/**
 * Runs a prepared call to its answer, reported to `host` with `owner`; may report before it
 * returns (an unknown tool, invalid arguments). `at` is the caller's clock reading now, taken as
 * the handler's start when nothing waits before it. Never throws.
 */
export function dispatch<Ctx, T>(p: PreparedCall<Ctx>, host: DispatchHost<Ctx, T>, owner: T, at?: number): void {
  p.host = host;
  p.owner = owner;
  const { call, tool } = p;
  if (p.unresolved !== undefined) fail(p, p.unresolved);
  else if (!tool) {
    // Suggested, never run: the model may have meant something else, and it may mutate.
    const suggestion = suggestTool(call.toolName, p.scope.offered());
    settleText(p, texts.unsupportedCall(call.toolName, call.payload.kind === "custom", suggestion));
  } else {
    const refusal = p.scope.unavailable?.(call.toolName, tool);
    if (refusal === undefined) check(p, tool, host, at);
    else settleText(p, refusal);
  }
}

/**
 * Steps a and b: the payload kind, the arguments; the session ledger (a quota, a loop: DESIGN
 * section 18) may answer the call instead; then straight to the handler when nothing may wait.
 */
function check<Ctx>(
  p: PreparedCall<Ctx>,
  tool: RegisteredTool<Ctx>,
  host: DispatchHost<Ctx, unknown>,
  at?: number,
): void {
  const { call } = p;
  const { turn } = host;
  let invocation: Invocation<Ctx>;
  let risk: unknown;
  let direct: boolean;
  let mutating: boolean | Promise<boolean> = false;
  let refusal: string | undefined;
  try {
    if (!handlerMatchesKind(tool.handler, call.payload)) {
      throw FunctionCallError.fatal(texts.incompatiblePayload(call.toolName));
    }
    risk = turn.permissions?.riskField === true ? takeRisk(call) : undefined;
    invocation = new Invocation(p, turn, host.context, callArguments(p, tool.validate, turn));
    // Quotas and loops: before the policy stage asks anyone (a repair is counted there too).
    const { ledger } = p.scope;
    const repaired = p.repairs !== undefined;
    if (repaired || ledger.admits) refusal = ledger.admit(call, invocation.args, turn, host.turnId ?? turn, repaired);
    if (refusal === undefined && tool.handler.isMutating) mutating = tool.handler.isMutating(invocation);
    // Nothing to wait for before the handler (no policy, classified at once, the gate open for a
    // mutating call): no promise before the handler's own.
    direct =
      !turn.permissions &&
      !turn.hooks &&
      !turn.callJournal &&
      (mutating === false || (mutating === true && turn.toolCallGate.isReady()));
  } catch (err) {
    fail(p, err);
    return;
  }
  if (refusal !== undefined) {
    settleText(p, refusal);
    return;
  }
  if (direct) {
    start(p, tool, invocation, at ?? now());
    return;
  }
  admit(p, tool, invocation, risk, mutating).then(
    (admitted) => {
      if (typeof admitted === "string") {
        p.scope.ledger.denied(call);
        settleText(p, admitted);
      } else startUnlessAborted(p, tool, admitted);
    },
    (err: unknown) => {
      fail(p, err);
    },
  );
}

/**
 * Steps c-e, what may wait before the handler starts: classification, the policy stage (hooks,
 * permissions, asking a person), the gate. Returns the invocation to run (a hook may have
 * rewritten it), or the text refusing the call. The call holds its lock slot meanwhile.
 */
async function admit<Ctx>(
  p: PreparedCall<Ctx>,
  tool: RegisteredTool<Ctx>,
  invocation: Invocation<Ctx>,
  risk: unknown,
  classified: boolean | Promise<boolean>,
): Promise<Invocation<Ctx> | string> {
  const { turn } = invocation;
  const mutating = await classified;
  if (turn.permissions !== undefined || turn.hooks !== undefined) {
    const passed = await policyStage(tool, invocation, mutating, risk, p, p.scope.sessionId);
    if (!("invocation" in passed)) return passed.text;
    invocation = passed.invocation;
  }
  if (mutating && !turn.toolCallGate.isReady()) {
    const gateStart = now();
    await turn.toolCallGate.waitReady(p.signal);
    p.gateWaitMs = now() - gateStart;
  }
  // Journaled: a call that may not run twice starts only once its start is on record.
  const recorded = turn.callJournal?.started(invocation.callId, mutating);
  if (recorded) await recorded;
  return invocation;
}

/**
 * The call may have been aborted while its classification, approval or gate was pending, or in
 * the hop from `admit`'s return to here (another call's "abort" decision settles in between):
 * never start it then. Checked in the same synchronous step as the start, so nothing can come
 * between.
 */
function startUnlessAborted<Ctx>(p: PreparedCall<Ctx>, tool: RegisteredTool<Ctx>, invocation: Invocation<Ctx>): void {
  if (p.aborted) fail(p, p.signal.reason);
  else start(p, tool, invocation, now());
}

/** Step f: the middleware chain around the handler. */
function start<Ctx>(p: PreparedCall<Ctx>, tool: RegisteredTool<Ctx>, invocation: Invocation<Ctx>, at: number): void {
  let output: Promise<ToolOutput>;
  try {
    p.startedAt = at;
    p.invocation = invocation;
    const { turn } = invocation;
    // The event object is built only when someone listens.
    if (p.host.announcesBegin && turn.onEvent) {
      const { callId, toolName, payload } = p.call;
      emitEvent(turn, { type: "tool_call_begin", callId, toolName, payloadKind: payload.kind });
    }
    // `Promise.resolve` takes a plain value or a foreign thenable as `await` would (and is the
    // promise itself otherwise).
    output = Promise.resolve(
      tool.middleware.length === 0 ? tool.handler.handle(invocation) : runMiddleware(tool, invocation),
    );
  } catch (err) {
    fail(p, err);
    return;
  }
  output.then(
    (out) => {
      handled(p, invocation, out);
    },
    (err: unknown) => {
      handlerFailed(p, invocation, err);
    },
  );
}

/** The handler threw: PostToolUseFailure hooks (when any match) see the failure before the model does. */
function handlerFailed<Ctx>(p: PreparedCall<Ctx>, invocation: Invocation<Ctx>, err: unknown): void {
  const { turn } = invocation;
  const hooks = turn.hooks;
  if (hooks === undefined || p.aborted || FunctionCallError.isFatal(err)) {
    fail(p, err);
    return;
  }
  const text = failureText(p.call, err, turn, false);
  postToolUseFailure(hooks, invocation, text, p.scope.sessionId).then(
    (context) => {
      settleText(p, context.length === 0 ? text : `${text}\n\n${context.join("\n")}`);
    },
    (e: unknown) => {
      fail(p, e);
    },
  );
}

/** Steps g and h: PostToolUse hooks, then the output item (cut to the budget, kept whole in the spill). */
function handled<Ctx>(p: PreparedCall<Ctx>, invocation: Invocation<Ctx>, output: ToolOutput): void {
  const { call, scope } = p;
  const { turn } = invocation;
  let item: ResponseInputItem;
  let success = false;
  try {
    const body = outputBody(output);
    if (typeof body === "string") {
      item = failureItem(call, texts.malformedOutput(call.toolName, body), turn);
    } else if (turn.hooks !== undefined) {
      // The handler's time, before the hooks (which the runtime counts in the call's total).
      p.handlerMs = p.handlerTime(now());
      postToolUse(turn.hooks, invocation, body, scope.sessionId).then(
        (after) => {
          if (typeof after === "string") settleText(p, after);
          else settleBody(p, after);
        },
        (err: unknown) => {
          fail(p, err);
        },
      );
      return;
    } else if (
      scope.spill &&
      body.bounded !== true &&
      typeof body.body === "string" &&
      overBudget(body.body, turn.truncationPolicy)
    ) {
      // Only an output that will be cut pays for the file.
      truncateBodySpilling(body.body, turn.truncationPolicy, scope.spill, call.callId).then(
        (cut) => {
          settleBody(p, { ...body, body: cut, bounded: true });
        },
        (err: unknown) => {
          fail(p, err);
        },
      );
      return;
    } else {
      item = answerItem(call, body, turn);
      success = body.success !== false;
    }
  } catch (err) {
    fail(p, err);
    return;
  }
  settle(p, item, success);
}

function settleBody<Ctx>(p: PreparedCall<Ctx>, body: OutputBody): void {
  let item: ResponseInputItem;
  try {
    item = answerItem(p.call, body, p.host.turn);
  } catch (err) {
    fail(p, err);
    return;
  }
  settle(p, item, body.success !== false);
}

/** Answers with a failure text (an unknown tool, a refusal, a PostToolUse block). */
function settleText<Ctx>(p: PreparedCall<Ctx>, text: string): void {
  let item: ResponseInputItem;
  try {
    item = failureItem(p.call, text, p.host.turn);
  } catch (err) {
    fail(p, err);
    return;
  }
  settle(p, item, false);
}

/** Every error but `Fatal` becomes a failure output; a fatal one, or one thrown answering it, goes to the host. */
function fail<Ctx>(p: PreparedCall<Ctx>, err: unknown): void {
  const { host } = p;
  let item: ResponseInputItem | undefined;
  let thrown = err;
  try {
    if (!FunctionCallError.isFatal(err)) {
      item = failureItem(p.call, failureText(p.call, err, host.turn, p.aborted), host.turn);
    }
  } catch (answering) {
    thrown = answering;
  }
  if (item) settle(p, item, false);
  else host.failed(p.owner, thrown);
}

/**
 * The one way out. The handler's time is read last, once its output is bounded (unless
 * PostToolUse hooks ran, which read it before them): without hooks, the runtime takes this
 * moment as the call's end.
 */
function settle<Ctx>(p: PreparedCall<Ctx>, item: ResponseInputItem, success: boolean): void {
  if (p.handlerMs === 0) p.handlerMs = p.handlerTime(now());
  p.host.settled(p.owner, p.repairs ? withRepairNote(item, p.repairs) : item, success);
}
