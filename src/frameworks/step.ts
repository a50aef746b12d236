import { toolAnswer, type ToolAnswer } from "../adapters/index.js";
import type { ToolRouter } from "../router/index.js";
import { ToolCallRuntime, type ToolCallOutcome } from "../runtime/index.js";
import type { ToolEvent, TurnContext } from "../turn/index.js";

/** One tool call as an agent framework hands it over: its id, the tool, the parsed input. */
export interface FrameworkCall {
  callId: string;
  toolName: string;
  input: unknown;
}

/** What a framework adapter passes on to each step's `ToolCallRuntime`. */
export interface FrameworkRuntimeOptions {
  /** Shared calls running at once within a step; default 16. */
  maxConcurrency?: number;
  /** Every call's deadline unless its spec sets one, in ms; default 600_000. */
  toolTimeoutMs?: number;
}

/** A step's answer to one call: text, images, whether it failed or was aborted. */
export interface FrameworkAnswer extends ToolAnswer {
  aborted: boolean;
}

/** Where a call stands when the framework asks whether it needs approval. */
export type PolicyGate = "asked" | "passed";

interface StepOptions extends FrameworkRuntimeOptions {
  signal?: AbortSignal | undefined;
  /**
   * Approvals the framework asks of its user: a call our policy asks about is reported
   * "asked" (and released with a deny, so later calls move on); a call in `approved` is allowed.
   */
  frameworkApprovals?: boolean;
  approved?: ReadonlySet<string>;
}

/** The message a denied escalation or unexpected approval carries: nobody inside a step can answer it. */
const NO_APPROVER_IN_STEP = "no one can answer this approval inside the framework's tool step";

/**
 * The tool calls of one model message (a framework "step") run through one `ToolCallRuntime`,
 * so they share its lock: shared calls overlap, exclusive ones run alone, and conflicting calls
 * keep call order, although each framework calls its tools' `execute` one by one.
 */
export class FrameworkStep<Ctx = unknown> {
  readonly runtime: ToolCallRuntime<Ctx>;
  private readonly answers = new Map<string, Deferred<FrameworkAnswer>>();
  private readonly gates = new Map<string, Deferred<PolicyGate>>();
  private readonly frameworkApprovals: boolean;
  private readonly approved: ReadonlySet<string>;

  constructor(router: ToolRouter<Ctx>, turn: TurnContext, opts: StepOptions = {}) {
    this.frameworkApprovals = opts.frameworkApprovals === true;
    this.approved = opts.approved ?? new Set();
    const listener = turn.onEvent;
    // Approval requests are ours to route only when the framework (or a one-shot allow) answers them.
    const bridged: TurnContext =
      this.frameworkApprovals || this.approved.size > 0
        ? {
            ...turn,
            onEvent: (event) => {
              this.observe(event);
              listener?.(event);
            },
          }
        : turn;
    this.runtime = new ToolCallRuntime(router, bridged, {
      ...(opts.maxConcurrency === undefined ? {} : { maxConcurrency: opts.maxConcurrency }),
      ...(opts.toolTimeoutMs === undefined ? {} : { toolTimeoutMs: opts.toolTimeoutMs }),
      ...(opts.signal === undefined ? {} : { signal: opts.signal }),
      onOutcome: (outcome) => {
        this.settle(outcome);
      },
    });
  }

  /** Starts the call unless it already started (a framework may hand a call over twice). */
  submit(call: FrameworkCall): Deferred<FrameworkAnswer> {
    const started = this.answers.get(call.callId);
    if (started) return started;
    const answer = deferred<FrameworkAnswer>();
    this.answers.set(call.callId, answer);
    const result = this.runtime.submit({
      type: "function_call",
      call_id: call.callId,
      name: call.toolName,
      arguments: JSON.stringify(call.input ?? {}),
    });
    if (!result.accepted) {
      const text = `call ${call.callId} rejected: ${result.reason ?? "not a tool call"}`;
      answer.resolve({ callId: call.callId, text, images: [], success: false, aborted: false });
      this.gate(call.callId).resolve("passed");
    }
    return answer;
  }

  /** The call's answer, once it settles (call order is the caller's: one promise per call). */
  answer(call: FrameworkCall): Promise<FrameworkAnswer> {
    return this.submit(call).promise;
  }

  /**
   * Resolves "asked" when the policy asks about the call (it is then released with a deny and
   * the framework asks its user), "passed" once it started or was answered without asking.
   */
  policyGate(call: FrameworkCall): Promise<PolicyGate> {
    this.submit(call);
    return this.gate(call.callId).promise;
  }

  private gate(callId: string): Deferred<PolicyGate> {
    let gate = this.gates.get(callId);
    if (!gate) this.gates.set(callId, (gate = deferred()));
    return gate;
  }

  private settle(outcome: ToolCallOutcome): void {
    this.gate(outcome.callId).resolve("passed");
    this.answers.get(outcome.callId)?.resolve({ ...toolAnswer(outcome), aborted: outcome.aborted });
  }

  private observe(event: ToolEvent): void {
    if (event.type === "tool_call_begin") {
      this.gate(event.callId).resolve("passed");
      return;
    }
    if (event.type !== "approval_request") return;
    const { callId } = event;
    if (this.approved.has(callId) && event.request.kind === "tool") {
      this.runtime.respondToApproval(callId, { decision: "allow" });
    } else if (this.frameworkApprovals && event.request.kind === "tool") {
      // Released at once so the calls queued behind it go on; the framework re-runs it once approved.
      this.gate(callId).resolve("asked");
      this.runtime.respondToApproval(callId, { decision: "deny", message: "asked through the framework" });
    } else {
      this.runtime.respondToApproval(callId, { decision: "deny", message: NO_APPROVER_IN_STEP });
    }
  }
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
