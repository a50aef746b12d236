import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import {
  FunctionCallError,
  outputBody,
  type OutputBody,
  type ToolOutput,
  responseItemFor,
  specName,
  texts,
  type ConfiguredToolSpec,
  type ResponseInputItem,
  type ResponseItem,
  type ToolCall,
  type ToolSpec,
  type UnknownItem,
} from "../protocol/index.js";
import {
  handlerMatchesKind,
  parseArguments,
  SchemaValidatorCache,
  validateArguments,
  type ArgumentValidator,
  type McpToolRef,
  type McpToolSource,
  type RegisteredTool,
  type ToolActivation,
  type ToolInvocation,
  type ToolRegistry,
} from "../registry/index.js";
import { overBudget, truncateBody, truncateBodySpilling, type SpillStore, type TurnContext } from "../turn/index.js";
import { policyStage, postToolUse, postToolUseFailure } from "./policyStage.js";
import { errorText, now } from "../util/index.js";
import { buildCall, ToolCallFailure, type BuiltToolCall } from "./buildToolCall.js";
import { Invocation } from "./invocation.js";

export interface DispatchOptions<Ctx> {
  turn: TurnContext;
  /** Read only when needed (gate wait, `inv.signal`): a caller may create it lazily. */
  readonly signal: AbortSignal;
  /** Whether `signal` has aborted, read without making it; absent: `signal` is read. */
  readonly aborted?: boolean;
  /** `ToolInvocation.onAbort`; absent: the invocation listens on `signal`. */
  onAbort?(listener: (reason: unknown) => void): void;
  context?: Ctx;
  /**
   * The moment the handler starts (lock held, gate passed). The runtime emits
   * `tool_call_begin` here and keeps the invocation for the handler's `abortedOutput`.
   */
  onStart?(invocation: ToolInvocation<Ctx>, startedAt: number): void;
  /**
   * A person answered "abort": the call is answered with `text` and the turn ends now, before
   * any other call can start (the runtime's `abort`).
   */
  abortTurn?(text: string): void;
}

export interface DispatchResult {
  item: ResponseInputItem;
  success: boolean;
  timing: { gateWaitMs: number; handlerMs: number };
}

/** Where `dispatchTo` hands a call's result. Neither method may throw. */
export interface DispatchSink {
  /** The call's answer: its output, or the failure output every non-fatal error becomes. */
  dispatched(result: DispatchResult): void;
  /** What dispatch threw: a `Fatal` error (the turn ends), or an error while answering one. */
  dispatchFailed(err: unknown): void;
}

/**
 * Turns model items into calls and dispatches calls to their handlers (Codex `ToolRouter`).
 * Building a router from a config is `createToolRouter`'s job (src/toolset.ts).
 */
export class ToolRouter<Ctx = unknown> {
  private readonly validators: SchemaValidatorCache;
  private readonly logger: Logger | undefined;
  /** MCP tools shadowed by a registered tool of the same name, each reported once. */
  private readonly shadowed = new Set<string>();
  private specByName: Map<string, ToolSpec> | undefined;
  private readonly closers: ReadonlyArray<() => Promise<void>>;
  private readonly spill: SpillStore | undefined;
  /** Tool groups and deferred tools: what is offered and callable now. */
  private readonly activation: ToolActivation | undefined;
  private closing: Promise<void> | undefined;
  /** The session this router holds: the `session_id` its hooks read. */
  readonly sessionId: string = randomUUID();

  constructor(
    private readonly registry: ToolRegistry<Ctx>,
    private readonly configuredSpecs: ConfiguredToolSpec[],
    private readonly mcp?: McpToolSource,
    opts: {
      logger?: Logger;
      closers?: ReadonlyArray<() => Promise<void>>;
      spill?: SpillStore;
      activation?: ToolActivation;
    } = {},
  ) {
    this.validators = new SchemaValidatorCache(opts.logger);
    this.logger = opts.logger;
    this.closers = opts.closers ?? [];
    this.spill = opts.spill;
    this.activation = opts.activation;
  }

  /**
   * Ends the session the router holds (DESIGN section 15): kills exec sessions and whatever else
   * its tools keep across turns. An MCP manager is closed by whoever created it. Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= Promise.allSettled(this.closers.map((close) => close())).then(() => undefined);
    return this.closing;
  }

  /** Every tool offered to the model now: registered specs, then the MCP tools listed now. */
  specs(opts: { riskField?: boolean } = {}): ConfiguredToolSpec[] {
    const all = this.allSpecs();
    return opts.riskField === true ? all.map((c) => this.withRiskField(c)) : all;
  }

  /**
   * The name of every tool this router can dispatch, active or not (a deferred tool or one of an
   * inactive group too): what a permission rule or hook matcher may name.
   */
  toolNames(): string[] {
    return this.listedSpecs().map((c) => specName(c.spec));
  }

  /**
   * The registered spec of that name, active or not (MCP tools are function tools): one lookup,
   * where `specs()` lists every tool (what a per-call caller such as serve-mcp must not pay).
   */
  registeredSpec(toolName: string): ToolSpec | undefined {
    this.specByName ??= new Map(this.configuredSpecs.map((c) => [specName(c.spec), c.spec]));
    return this.specByName.get(toolName);
  }

  private allSpecs(): ConfiguredToolSpec[] {
    const all = this.listedSpecs();
    const activation = this.activation;
    if (!activation) return all;
    const registered = new Set(this.configuredSpecs);
    return all.filter((c) => activation.isActive(specName(c.spec), !registered.has(c)));
  }

  private listedSpecs(): ConfiguredToolSpec[] {
    if (!this.mcp) return [...this.configuredSpecs];
    const mcpSpecs = this.mcp.configuredSpecs().filter((c) => {
      const name = specName(c.spec);
      if (!this.registry.lookup(name)) return true;
      if (!this.shadowed.has(name)) {
        this.shadowed.add(name);
        this.logger?.warn(
          { toolName: name },
          "an MCP tool has the name of a registered tool; the registered tool is offered",
        );
      }
      return false;
    });
    return [...this.configuredSpecs, ...mcpSpecs];
  }

  /**
   * With `PermissionPolicy.riskField` (OpenHands' risk prediction), the schema of every tool that
   * may change things (its handler classifies calls, or the spec is not `readOnlyHint`) gains a
   * required `security_risk`, which dispatch strips before the tool's own validation.
   */
  private withRiskField(configured: ConfiguredToolSpec): ConfiguredToolSpec {
    const { spec } = configured;
    if (spec.type !== "function" || !this.mayMutate(spec.name, spec.annotations?.readOnlyHint)) return configured;
    const properties = {
      ...(spec.parameters["properties"] as Record<string, unknown> | undefined),
      security_risk: RISK_PROPERTY,
    };
    const required = [...((spec.parameters["required"] as string[] | undefined) ?? []), "security_risk"];
    return { ...configured, spec: { ...spec, parameters: { ...spec.parameters, properties, required } } };
  }

  private mayMutate(toolName: string, readOnlyHint: boolean | undefined): boolean {
    const registered = this.registry.lookup(toolName);
    if (registered) return registered.handler.isMutating !== undefined && readOnlyHint !== true;
    return this.mcp?.resolve(toolName)?.annotations?.readOnlyHint !== true;
  }

  /** Null for items that are not tool calls; throws `FunctionCallError` for broken tool items. */
  buildToolCall(item: ResponseItem | UnknownItem): ToolCall | null {
    const built = this.tryBuildToolCall(item);
    if (built instanceof ToolCallFailure) throw built.error;
    return built;
  }

  /** `buildToolCall` as a value: never throws. */
  tryBuildToolCall(item: ResponseItem | UnknownItem): BuiltToolCall {
    return buildCall(item, this.resolveMcp, this.shellTool);
  }

  /** `shell_call` items go to the registered shell tool, whichever form it was offered in. */
  private readonly shellTool = (): string =>
    !this.registry.lookup("shell") && this.registry.lookup("shell_command") ? "shell_command" : "shell";

  /** A registered tool wins over an MCP tool listed later under the same name. */
  private readonly resolveMcp = (name: string): McpToolRef | undefined =>
    this.mcp && !this.registry.lookup(name) ? this.mcp.resolve(name) : undefined;

  /** The shortest deadline any registered tool sets, if one does. */
  shortestToolTimeoutMs(): number | undefined {
    return this.registry.shortestTimeoutMs;
  }

  /** The tool's own deadline (`pushSpec(spec, { timeoutMs })`), if it has one. */
  toolTimeoutMs(toolName: string): number | undefined {
    return this.registry.lookup(toolName)?.timeoutMs;
  }

  /** By spec; an unknown name is not parallel-safe. */
  toolSupportsParallel(toolName: string): boolean {
    return this.registry.lookup(toolName)?.supportsParallel ?? this.mcp?.resolve(toolName)?.supportsParallel ?? false;
  }

  /**
   * Read-only to an MCP client: a registered tool that is parallel-safe and never mutates (no
   * `isMutating`); an MCP tool only by its server's `readOnlyHint`.
   */
  toolIsReadOnly(toolName: string): boolean {
    const registered = this.registry.lookup(toolName);
    if (registered) return registered.supportsParallel && !registered.handler.isMutating;
    return this.mcp?.resolve(toolName)?.annotations?.readOnlyHint === true;
  }

  /**
   * The spec flag, then the handler's per-call say (which may only downgrade). `tool` is what
   * `toolFor(call)` gave, when the caller already has it.
   */
  callSupportsParallel(call: ToolCall, tool: RegisteredTool<Ctx> | undefined = this.toolFor(call)): boolean {
    if (!tool?.supportsParallel) return false;
    return tool.handler.supportsParallel ? tool.handler.supportsParallel(call) : true;
  }

  /**
   * The text an aborted call answers with: its handler's `abortedOutput` when it gives one,
   * else `aborted by user after {s.s}s`. `invocation` is undefined when the handler never started.
   */
  abortedText(
    call: ToolCall,
    invocation: ToolInvocation<Ctx> | undefined,
    elapsedMs: number,
    tool: RegisteredTool<Ctx> | undefined = this.toolFor(call),
  ): string {
    const handler = tool?.handler;
    try {
      const text = handler?.abortedOutput?.(invocation, elapsedMs);
      if (typeof text === "string") return text;
    } catch (err) {
      this.logger?.warn({ err: errorText(err), callId: call.callId }, "abortedOutput threw");
    }
    return texts.abortedAfter(elapsedMs);
  }

  /**
   * The tool a call runs: the registered one, else the MCP tool of that name; undefined when
   * neither exists. A caller that resolves once per call passes it on to the methods below.
   */
  toolFor(call: ToolCall): RegisteredTool<Ctx> | undefined {
    const registered = this.registry.lookup(call.toolName);
    if (registered) return registered;
    if (call.payload.kind !== "mcp" || !this.mcp) return undefined;
    const ref = this.mcp.resolve(call.toolName);
    if (!ref) return undefined;
    return {
      handler: this.mcp.handler,
      validate: ref.inputSchema ? this.validators.validatorFor(ref.inputSchema, call.toolName, "2020-12") : null,
      supportsParallel: ref.supportsParallel,
      middleware: this.registry.middlewareFor(call.toolName),
    };
  }

  /**
   * Runs one call to completion (DESIGN section 3, steps a-h): handler lookup, payload check,
   * argument validation, the policy stage (hooks, permissions), the gate for mutating calls,
   * the middleware chain and the handler, PostToolUse hooks, output conversion and truncation.
   * Every error but `Fatal` becomes a failure output; a fatal one is thrown. `tool` is what
   * `toolFor(call)` gave, when the caller already has it.
   */
  dispatch(call: ToolCall, opts: DispatchOptions<Ctx>, tool?: RegisteredTool<Ctx>): Promise<DispatchResult> {
    return new Promise((resolve, reject) => {
      this.dispatchTo(call, opts, { dispatched: resolve, dispatchFailed: reject }, tool);
    });
  }

  /**
   * `dispatch` with the result handed to `sink` instead of a promise (what the runtime uses): on
   * the common path (no classification, policy or hooks) the handler's promise is the only one,
   * and the sink hears from the handler's own callback, a microtask hop sooner. The sink may be
   * called before this returns (an unknown tool, invalid arguments). `dispatchedAt` is the
   * caller's clock reading at this moment, taken as the handler's start when nothing waits before it.
   */
  dispatchTo(
    call: ToolCall,
    opts: DispatchOptions<Ctx>,
    sink: DispatchSink,
    tool?: RegisteredTool<Ctx>,
    dispatchedAt?: number,
  ): void {
    const dispatch = new CallDispatch(call, opts, sink, dispatchedAt, this.spill, this.sessionId);
    let resolved: RegisteredTool<Ctx> | undefined;
    try {
      resolved = tool ?? this.toolFor(call);
    } catch (err) {
      dispatch.failed(err);
      return;
    }
    if (!resolved) dispatch.answer(texts.unsupportedCall(call.toolName, call.payload.kind === "custom"));
    else if (this.activation && !this.activation.isActive(call.toolName, resolved.handler === this.mcp?.handler))
      dispatch.answer(
        this.activation.groupFor(call.toolName) === undefined
          ? texts.toolDeferred(call.toolName)
          : texts.toolInactive(call.toolName),
      );
    else dispatch.run(resolved);
  }

  /** `dispatch(...).item`. */
  async dispatchToolCall(call: ToolCall, opts: DispatchOptions<Ctx>): Promise<ResponseInputItem> {
    return (await this.dispatch(call, opts)).item;
  }
}

/**
 * One call's dispatch as a chain of callbacks rather than an async function, each step handing
 * on to the next: `run` (checks, arguments; `admit` when something may wait before the handler),
 * `start` (the handler), `handled` (its output), and `failed` for whatever any step throws.
 * Every step ends in exactly one call of the sink.
 */
class CallDispatch<Ctx> {
  private readonly timing: DispatchResult["timing"] = { gateWaitMs: 0, handlerMs: 0 };
  private handlerStart = 0;

  constructor(
    private readonly call: ToolCall,
    private readonly opts: DispatchOptions<Ctx>,
    private readonly sink: DispatchSink,
    /** The caller's clock reading when it dispatched: the handler's start unless something waits first. */
    private readonly dispatchedAt: number | undefined,
    /** `ToolsConfig.spillDir`: a text answer cut to the budget is kept whole there first. */
    private readonly spill: SpillStore | undefined,
    /** The router's session id, for the hooks' input. */
    private readonly sessionId: string,
  ) {}

  run(tool: RegisteredTool<Ctx>): void {
    const { call, opts } = this;
    const { turn } = opts;
    let invocation: Invocation<Ctx>;
    let risk: unknown;
    let direct: boolean;
    let mutating: boolean | Promise<boolean> = false;
    try {
      if (!handlerMatchesKind(tool.handler, call.payload)) {
        throw FunctionCallError.fatal(texts.incompatiblePayload(call.toolName));
      }
      // With the risk field on, the model's `security_risk` is the policy's, not the tool's.
      risk = turn.permissions?.riskField === true ? takeRisk(call) : undefined;
      invocation = new Invocation(call, invocationArgs(call, tool.validate), opts);
      if (tool.handler.isMutating) mutating = tool.handler.isMutating(invocation);
      // Nothing to wait for before the handler (no policy, classified at once, the gate open for a
      // mutating call): no promise before the handler's own.
      direct =
        !turn.permissions && !turn.hooks && (mutating === false || (mutating === true && turn.toolCallGate.isReady()));
    } catch (err) {
      this.failed(err);
      return;
    }
    if (direct) {
      this.start(tool, invocation, this.dispatchedAt ?? now());
      return;
    }
    this.admit(tool, invocation, risk, mutating).then(
      (admitted) => {
        if (typeof admitted === "string") this.answer(admitted);
        else this.startUnlessAborted(tool, admitted);
      },
      (err: unknown) => {
        this.failed(err);
      },
    );
  }

  /**
   * What may wait before the handler starts: classification, the policy stage, the gate. Returns
   * the invocation to run (a hook may have rewritten it), or the text refusing the call.
   */
  private async admit(
    tool: RegisteredTool<Ctx>,
    invocation: Invocation<Ctx>,
    risk: unknown,
    classified: boolean | Promise<boolean>,
  ): Promise<Invocation<Ctx> | string> {
    const { opts, timing } = this;
    const { turn } = opts;
    const mutating = await classified;
    if (turn.permissions !== undefined || turn.hooks !== undefined) {
      const passed = await policyStage(tool, invocation, mutating, risk, opts, this.sessionId);
      if (!("invocation" in passed)) return passed.text;
      invocation = passed.invocation;
    }
    // `opts.signal` is read only when the call waits or was aborted: the runtime makes it on demand.
    if (mutating && !turn.toolCallGate.isReady()) {
      const gateStart = now();
      await turn.toolCallGate.waitReady(opts.signal);
      timing.gateWaitMs = now() - gateStart;
    }
    return invocation;
  }

  /**
   * The call may have been aborted while its classification, approval or gate was pending, or in
   * the hop from `admit`'s return to here (another call's "abort" decision settles in between):
   * never start it then. Checked in the same synchronous step as the start, so nothing can come
   * between.
   */
  private startUnlessAborted(tool: RegisteredTool<Ctx>, invocation: Invocation<Ctx>): void {
    const { opts } = this;
    // `opts.signal` is read only when the call was aborted: the runtime makes it on demand.
    if (opts.aborted !== false && opts.signal.aborted) {
      this.failed(opts.signal.reason);
      return;
    }
    this.start(tool, invocation, now());
  }

  private start(tool: RegisteredTool<Ctx>, invocation: Invocation<Ctx>, startedAt: number): void {
    let output: Promise<ToolOutput>;
    try {
      this.handlerStart = startedAt;
      this.opts.onStart?.(invocation, startedAt);
      // `Promise.resolve` takes a plain value or a foreign thenable as `await` would (and is the
      // promise itself otherwise).
      output = Promise.resolve(
        tool.middleware.length === 0 ? tool.handler.handle(invocation) : runMiddleware(tool, invocation),
      );
    } catch (err) {
      this.failed(err);
      return;
    }
    output.then(
      (out) => {
        this.handled(invocation, out);
      },
      (err: unknown) => {
        this.handlerFailed(invocation, err);
      },
    );
  }

  /** The handler threw: PostToolUseFailure hooks (when any match) see the failure before the model does. */
  private handlerFailed(invocation: Invocation<Ctx>, err: unknown): void {
    const hooks = this.opts.turn.hooks;
    // `opts.signal` is read only when the call was aborted: the runtime makes it on demand.
    const aborted = this.opts.aborted !== false && this.opts.signal.aborted;
    if (hooks === undefined || aborted || FunctionCallError.isFatal(err)) {
      this.failed(err);
      return;
    }
    const text = failureText(this.call, err, this.opts);
    postToolUseFailure(hooks, invocation, text, this.sessionId).then(
      (context) => {
        this.answer(context.length === 0 ? text : `${text}\n\n${context.join("\n")}`);
      },
      (e: unknown) => {
        this.failed(e);
      },
    );
  }

  private handled(invocation: Invocation<Ctx>, output: ToolOutput): void {
    const { call, timing } = this;
    const { turn } = this.opts;
    let result: DispatchResult;
    try {
      const body = outputBody(output);
      if (typeof body === "string") {
        result = failure(call, texts.malformedOutput(call.toolName, body), turn, timing);
      } else if (turn.hooks !== undefined) {
        timing.handlerMs = now() - this.handlerStart;
        postToolUse(turn.hooks, invocation, body, this.sessionId).then(
          (after) => {
            if (typeof after === "string") this.answer(after);
            else this.answerBody(after);
          },
          (err: unknown) => {
            this.failed(err);
          },
        );
        return;
      } else if (
        this.spill &&
        body.bounded !== true &&
        typeof body.body === "string" &&
        overBudget(body.body, turn.truncationPolicy)
      ) {
        // Only an output that will be cut pays for the file.
        truncateBodySpilling(body.body, turn.truncationPolicy, this.spill, call.callId).then(
          (cut) => {
            this.answerBody({ ...body, body: cut, bounded: true });
          },
          (err: unknown) => {
            this.failed(err);
          },
        );
        return;
      } else {
        result = answerWith(call, body, turn, timing);
      }
    } catch (err) {
      this.failed(err);
      return;
    }
    this.done(result);
  }

  private answerBody(body: OutputBody): void {
    let result: DispatchResult;
    try {
      result = answerWith(this.call, body, this.opts.turn, this.timing);
    } catch (err) {
      this.failed(err);
      return;
    }
    this.done(result);
  }

  /** Answers with a failure text (an unknown tool, a refusal, a PostToolUse block). */
  answer(text: string): void {
    let result: DispatchResult;
    try {
      result = failure(this.call, text, this.opts.turn, this.timing);
    } catch (err) {
      this.failed(err);
      return;
    }
    this.done(result);
  }

  /** Every error but `Fatal` becomes a failure output; a fatal one, or one thrown answering it, goes to the sink. */
  failed(err: unknown): void {
    let result: DispatchResult | undefined;
    let thrown = err;
    try {
      if (!FunctionCallError.isFatal(err)) {
        result = failure(this.call, failureText(this.call, err, this.opts), this.opts.turn, this.timing);
      }
    } catch (answering) {
      thrown = answering;
    }
    if (result) this.done(result);
    else this.sink.dispatchFailed(thrown);
  }

  /**
   * The handler's time is read last, once its output is bounded (unless PostToolUse hooks ran, which
   * read it before them): without hooks, the runtime takes this moment as the call's end.
   */
  private done(result: DispatchResult): void {
    if (this.handlerStart !== 0 && this.timing.handlerMs === 0) this.timing.handlerMs = now() - this.handlerStart;
    this.sink.dispatched(result);
  }
}

function answerWith(
  call: ToolCall,
  body: OutputBody,
  turn: TurnContext,
  timing: DispatchResult["timing"],
): DispatchResult {
  const bounded = body.bounded === true ? body.body : truncateBody(body.body, turn.truncationPolicy);
  const success = body.success !== false;
  return { item: responseItemFor(call.callId, call.payload.kind, bounded, success, body.shellCall), success, timing };
}

function failureText<Ctx>(call: ToolCall, err: unknown, opts: DispatchOptions<Ctx>): string {
  if (FunctionCallError.isRespondToModel(err)) return errorText(err) ?? texts.toolFailed(call.toolName, undefined);
  if (opts.signal.aborted) return texts.abortedByUser;
  const message = errorText(err);
  try {
    opts.turn.logger.error({ err, callId: call.callId, toolName: call.toolName }, "tool handler threw");
  } catch {
    // A thrown value the logger cannot serialize: the model still gets its answer.
    opts.turn.logger.error({ err: message, callId: call.callId, toolName: call.toolName }, "tool handler threw");
  }
  return texts.toolFailed(call.toolName, message);
}

function invocationArgs(call: ToolCall, validate: ArgumentValidator | null): unknown {
  const payload = call.payload;
  switch (payload.kind) {
    case "function":
    case "mcp": {
      const args = parseArguments(payload.kind === "function" ? payload.arguments : payload.rawArguments);
      validateArguments(call.toolName, args, validate);
      return args;
    }
    case "custom":
      return payload.input;
    case "local_shell":
      return payload.params;
    // What hooks and middleware see: the item's own fields.
    case "shell_call": {
      const { commands, timeoutMs, maxOutputLength } = payload.params;
      return { commands, timeout_ms: timeoutMs ?? null, max_output_length: maxOutputLength ?? null };
    }
    case "apply_patch_call":
      return payload.operation;
  }
}

/** A failure answer, bounded like every other output. */
function failure(call: ToolCall, text: string, turn: TurnContext, timing: DispatchResult["timing"]): DispatchResult {
  const item = responseItemFor(call.callId, call.payload.kind, truncateBody(text, turn.truncationPolicy), false);
  return { item, success: false, timing };
}

/**
 * The middleware chain around the handler, outermost first. `next(args)` validates the new
 * arguments against the tool's schema (a violation answers `invalid arguments for ...` and
 * the handler never starts) and hands inner layers an invocation carrying them.
 */
function runMiddleware<Ctx>(tool: RegisteredTool<Ctx>, invocation: Invocation<Ctx>): Promise<ToolOutput> {
  const chain = tool.middleware;
  const step = (i: number, inv: Invocation<Ctx>): Promise<ToolOutput> => {
    const mw = chain[i];
    if (!mw) return tool.handler.handle(inv);
    return mw(inv, async (args?: unknown) => {
      if (args === undefined) return step(i + 1, inv);
      validateArguments(inv.toolName, args, tool.validate);
      return step(i + 1, inv.withArgs(args));
    });
  };
  return step(0, invocation);
}

const RISK_PROPERTY = {
  type: "string",
  enum: ["low", "medium", "high"],
  description: "How risky this call is: what could go wrong if it runs (low, medium or high).",
};

/**
 * Removes `security_risk` from a function call's arguments (rewriting the payload the tool
 * validates and sees) and returns it; undefined when absent or not parseable.
 */
function takeRisk(call: ToolCall): unknown {
  const payload = call.payload;
  if (payload.kind !== "function" && payload.kind !== "mcp") return undefined;
  const raw = payload.kind === "function" ? payload.arguments : payload.rawArguments;
  let args: unknown;
  try {
    args = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (typeof args !== "object" || args === null || Array.isArray(args) || !("security_risk" in args)) return undefined;
  const { security_risk: risk, ...rest } = args as Record<string, unknown>;
  const stripped = JSON.stringify(rest);
  if (payload.kind === "function") payload.arguments = stripped;
  else payload.rawArguments = stripped;
  return risk;
}
