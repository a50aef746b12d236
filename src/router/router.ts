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
  type ToolInvocation,
  type ToolRegistry,
} from "../registry/index.js";
import { truncateBody, type SpillStore, type TurnContext } from "../turn/index.js";
import { policyStage, postToolUse } from "./policyStage.js";
import { errorText, now } from "../util/index.js";
import { buildCall, ToolCallFailure, type BuiltToolCall } from "./buildToolCall.js";
import { Invocation } from "./invocation.js";

export interface DispatchOptions<Ctx> {
  turn: TurnContext;
  /** Read only when needed (gate wait, `inv.signal`): a caller may create it lazily. */
  readonly signal: AbortSignal;
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

/**
 * Turns model items into calls and dispatches calls to their handlers (Codex `ToolRouter`).
 * Building a router from a config is `createToolRouter`'s job (src/toolset.ts).
 */
export class ToolRouter<Ctx = unknown> {
  private readonly validators: SchemaValidatorCache;
  private readonly logger: Logger | undefined;
  /** MCP tools shadowed by a registered tool of the same name, each reported once. */
  private readonly shadowed = new Set<string>();
  private readonly closers: ReadonlyArray<() => Promise<void>>;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly registry: ToolRegistry<Ctx>,
    private readonly configuredSpecs: ConfiguredToolSpec[],
    private readonly mcp?: McpToolSource,
    opts: { logger?: Logger; closers?: ReadonlyArray<() => Promise<void>>; spill?: SpillStore } = {},
  ) {
    this.validators = new SchemaValidatorCache(opts.logger);
    this.logger = opts.logger;
    this.closers = opts.closers ?? [];
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

  private allSpecs(): ConfiguredToolSpec[] {
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
    return buildCall(item, this.resolveMcp);
  }

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

  /** The spec flag, then the handler's per-call say (which may only downgrade). */
  callSupportsParallel(call: ToolCall): boolean {
    const resolved = this.resolve(call);
    if (!resolved?.supportsParallel) return false;
    return resolved.handler.supportsParallel ? resolved.handler.supportsParallel(call) : true;
  }

  /**
   * The text an aborted call answers with: its handler's `abortedOutput` when it gives one,
   * else `aborted by user after {s.s}s`. `invocation` is undefined when the handler never started.
   */
  abortedText(call: ToolCall, invocation: ToolInvocation<Ctx> | undefined, elapsedMs: number): string {
    const handler = this.resolve(call)?.handler;
    try {
      const text = handler?.abortedOutput?.(invocation, elapsedMs);
      if (typeof text === "string") return text;
    } catch (err) {
      this.logger?.warn({ err: errorText(err), callId: call.callId }, "abortedOutput threw");
    }
    return texts.abortedAfter(elapsedMs);
  }

  private resolve(call: ToolCall): RegisteredTool<Ctx> | undefined {
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
   * Every error but `Fatal` becomes a failure output; a fatal one is thrown.
   */
  async dispatch(call: ToolCall, opts: DispatchOptions<Ctx>): Promise<DispatchResult> {
    const { turn } = opts;
    const timing = { gateWaitMs: 0, handlerMs: 0 };
    let handlerStart = 0;
    let text: string;
    try {
      const resolved = this.resolve(call);
      if (!resolved) {
        text = texts.unsupportedCall(call.toolName, call.payload.kind === "custom");
      } else {
        const { handler } = resolved;
        if (!handlerMatchesKind(handler, call.payload)) {
          throw FunctionCallError.fatal(texts.incompatiblePayload(call.toolName));
        }
        // With the risk field on, the model's `security_risk` is the policy's, not the tool's.
        const risk = turn.permissions?.riskField === true ? takeRisk(call) : undefined;
        let invocation = new Invocation(call, invocationArgs(call, resolved.validate), opts);
        const mutating = handler.isMutating ? await handler.isMutating(invocation) : false;
        // With no policy configured this costs one property read.
        if (turn.permissions !== undefined || turn.hooks !== undefined) {
          const passed = await policyStage(resolved, invocation, mutating, risk, opts);
          if (!("invocation" in passed)) return failure(call, passed.text, turn, timing);
          invocation = passed.invocation;
        }
        if (mutating) {
          const gateStart = now();
          await turn.toolCallGate.waitReady(opts.signal);
          timing.gateWaitMs = now() - gateStart;
        }
        // The call may have been aborted while its classification or approval was pending: never start it then.
        if (handler.isMutating || turn.permissions || turn.hooks) opts.signal.throwIfAborted();
        handlerStart = now();
        opts.onStart?.(invocation, handlerStart);
        const output =
          resolved.middleware.length === 0
            ? await handler.handle(invocation)
            : await runMiddleware(resolved, invocation);
        timing.handlerMs = now() - handlerStart;
        const body = outputBody(output);
        if (typeof body !== "string") {
          if (turn.hooks !== undefined) {
            const after = await postToolUse(turn.hooks, invocation, body);
            if (typeof after === "string") return failure(call, after, turn, timing);
            return this.answer(call, after, turn, timing);
          }
          return this.answer(call, body, turn, timing);
        }
        text = texts.malformedOutput(call.toolName, body);
      }
    } catch (err) {
      if (handlerStart !== 0 && timing.handlerMs === 0) timing.handlerMs = now() - handlerStart;
      if (FunctionCallError.isFatal(err)) throw err;
      text = this.failureText(call, err, opts);
    }
    return failure(call, text, turn, timing);
  }

  private answer(
    call: ToolCall,
    body: OutputBody,
    turn: TurnContext,
    timing: DispatchResult["timing"],
  ): DispatchResult {
    const bounded = body.bounded === true ? body.body : truncateBody(body.body, turn.truncationPolicy);
    return { item: responseItemFor(call.callId, call.payload.kind, bounded), success: body.success !== false, timing };
  }

  /** `dispatch(...).item`. */
  async dispatchToolCall(call: ToolCall, opts: DispatchOptions<Ctx>): Promise<ResponseInputItem> {
    return (await this.dispatch(call, opts)).item;
  }

  private failureText(call: ToolCall, err: unknown, opts: DispatchOptions<Ctx>): string {
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
  }
}

/** A failure answer, bounded like every other output. */
function failure(call: ToolCall, text: string, turn: TurnContext, timing: DispatchResult["timing"]): DispatchResult {
  const item = responseItemFor(call.callId, call.payload.kind, truncateBody(text, turn.truncationPolicy));
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
