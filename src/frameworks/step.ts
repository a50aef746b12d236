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
  /**
   * Aborts every step's calls, besides the signal the framework hands each call. Pass the run's
   * signal where the framework starts calls before it hands one over (agents-js `needsApproval`).
   */
  signal?: AbortSignal;
}

/** A step's answer to one call: text, images, whether it failed or was aborted. */
export interface FrameworkAnswer extends ToolAnswer {
  aborted: boolean;
}

/** Where a call stands when the framework asks whether it needs approval. */
export type PolicyGate = "asked" | "passed";

interface StepOptions extends FrameworkRuntimeOptions {
  /** The framework's signal for the call that opens the step. */
  callSignal?: AbortSignal | undefined;
  /**
   * Approvals the framework asks of its user: a call our policy asks about is reported
   * "asked" (and released with a deny, so later calls move on); a call in `approved` is allowed.
   */
  frameworkApprovals?: boolean;
  approved?: Iterable<string>;
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
  private readonly approved: Set<string>;
  /** Calls handed over and not answered yet, and whether the step is younger than one macrotask. */
  private unanswered = 0;
  private fresh = true;
  private readonly followed = new WeakSet<AbortSignal>();

  constructor(router: ToolRouter<Ctx>, turn: TurnContext, opts: StepOptions = {}) {
    this.frameworkApprovals = opts.frameworkApprovals === true;
    this.approved = new Set(opts.approved);
    setImmediate(() => (this.fresh = false)).unref();
    const listener = turn.onEvent;
    // Approval requests are ours to route only when the framework answers them.
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
      onOutcome: (outcome) => {
        this.settle(outcome);
      },
    });
    this.follow(opts.signal);
    this.follow(opts.callSignal);
  }

  /**
   * Still taking calls: some are unanswered, or it was created within this macrotask (a model
   * message's calls reach `execute` together, the next message's only after these answered).
   */
  get open(): boolean {
    return !this.runtime.aborted && (this.unanswered > 0 || this.fresh);
  }

  /** Aborting `signal` aborts the step too (a framework whose approval hook sees no signal hands it over later). */
  follow(signal: AbortSignal | undefined): void {
    if (!signal || this.followed.has(signal)) return;
    this.followed.add(signal);
    if (signal.aborted) this.runtime.abort();
    else
      signal.addEventListener(
        "abort",
        () => {
          this.runtime.abort();
        },
        { once: true },
      );
  }

  has(callId: string): boolean {
    return this.answers.has(callId);
  }

  /** The framework's user approved this call: our policy's ask for it is answered allow. */
  allow(callId: string): void {
    this.approved.add(callId);
  }

  /** Starts the call unless it already started (a framework may hand a call over twice). */
  submit(call: FrameworkCall): Deferred<FrameworkAnswer> {
    const started = this.answers.get(call.callId);
    if (started) return started;
    const answer = deferred<FrameworkAnswer>();
    this.answers.set(call.callId, answer);
    this.unanswered++;
    const result = this.runtime.submit({
      type: "function_call",
      call_id: call.callId,
      name: call.toolName,
      arguments: JSON.stringify(call.input ?? {}),
    });
    if (!result.accepted) {
      this.unanswered--;
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
    this.unanswered--;
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

/**
 * The steps of frameworks that hand calls over without naming their step (agents-js,
 * LangChain tools): a call joins the open step, else starts a new one.
 */
export class FrameworkSteps<Ctx = unknown> {
  private current: FrameworkStep<Ctx> | undefined;
  /** Calls started and not yet collected: a framework may ask about a call long before it runs it. */
  private readonly byCall = new Map<string, FrameworkStep<Ctx>>();

  constructor(
    private readonly router: ToolRouter<Ctx>,
    private readonly turn: TurnContext,
    private readonly opts: Omit<StepOptions, "callSignal" | "approved">,
  ) {}

  /** The step `callId` belongs to; a call the open step has seen (re-run after an approval) starts a new one. */
  stepFor(callId: string, signal: AbortSignal | undefined): FrameworkStep<Ctx> {
    let step = this.byCall.get(callId);
    if (!step) {
      if (this.current?.open !== true || this.current.has(callId))
        this.current = new FrameworkStep(this.router, this.turn, { ...this.opts, callSignal: signal });
      step = this.current;
      this.byCall.set(callId, step);
    }
    step.follow(signal);
    return step;
  }

  /** Whether our policy asks about the call; an asked call is forgotten, so its approved re-run starts anew. */
  async policyGate(call: FrameworkCall): Promise<PolicyGate> {
    const gate = await this.stepFor(call.callId, undefined).policyGate(call);
    if (gate === "asked") this.byCall.delete(call.callId);
    return gate;
  }

  /** The call's answer; `approved`: the framework's user approved it after our policy asked. */
  async answer(call: FrameworkCall, signal: AbortSignal | undefined, approved: boolean): Promise<FrameworkAnswer> {
    const step = this.stepFor(call.callId, signal);
    if (approved) step.allow(call.callId);
    try {
      return await step.answer(call);
    } finally {
      this.byCall.delete(call.callId);
    }
  }
}

/** Whether our policy's "ask" goes to the framework: the turn has a policy and nothing else answers it. */
export function asksThroughFramework(turn: TurnContext, choice: "framework" | "turn" = "framework"): boolean {
  const permissions = turn.permissions;
  return choice === "framework" && permissions !== undefined && !permissions.approve && !permissions.nonInteractive;
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
