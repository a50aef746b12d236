import type { Logger } from "pino";
import type { ToolCall } from "../protocol/call.js";
import { FunctionCallError } from "../protocol/errors.js";
import type { ResponseInputItem, UnknownItem, ResponseItem } from "../protocol/items.js";
import type { ToolOutput } from "../protocol/output.js";
import type { ConfiguredToolSpec } from "../protocol/spec.js";
import type { TurnContext } from "../turn/context.js";
import { parseArguments, SchemaValidatorCache, validateArguments, type ArgumentValidator } from "../registry/arguments.js";
import { handlerMatchesKind, type ToolHandler, type ToolInvocation } from "../registry/handler.js";
import type { McpToolRef, McpToolSource } from "../registry/mcpSource.js";
import type { DynamicToolSpec, ToolsConfig } from "../registry/config.js";
import { toolFactory, type ToolFactoryContext, type ToolRegistration } from "../registry/factory.js";
import { ToolRegistryBuilder } from "../registry/builder.js";
import { specName } from "../protocol/spec.js";
import { builtinToolFactories } from "../handlers/index.js";
import type { RegisteredTool, ToolRegistry } from "../registry/registry.js";
import { buildToolCall } from "./buildToolCall.js";
import { failureItem, outputToResult } from "./outputs.js";

export interface DispatchOptions<Ctx> {
  turn: TurnContext;
  /** Read only when needed (gate wait, `inv.signal`): a caller may create it lazily. */
  signal: AbortSignal;
  context?: Ctx;
  /** Called when the handler is about to run (after the gate), with `performance.now()`. */
  onStart?(invocation: ToolInvocation<Ctx>, handler: ToolHandler<Ctx>, startedAt: number): void;
}

export interface DispatchResult {
  item: ResponseInputItem;
  success: boolean;
  timing: { gateWaitMs: number; handlerMs: number };
}

const now = (): number => performance.now();

/** Turns model items into calls and dispatches calls to their handlers (Codex `ToolRouter`). */
export class ToolRouter<Ctx = unknown> {
  private readonly validators: SchemaValidatorCache;
  private readonly logger: Logger | undefined;
  /** MCP tools shadowed by a registered tool of the same name, each reported once. */
  private readonly shadowed = new Set<string>();

  constructor(
    private readonly registry: ToolRegistry<Ctx>,
    private readonly configuredSpecs: ConfiguredToolSpec[],
    private readonly mcp?: McpToolSource,
    opts: { logger?: Logger } = {},
  ) {
    this.validators = new SchemaValidatorCache(opts.logger);
    this.logger = opts.logger;
  }

  /**
   * A router with the built-in tools `config` selects, the MCP tools of `opts.mcp`, the
   * embedder's dynamic tools, and plugin tools from factories registered with
   * `registerToolFactory` (`opts.tools`: factory name -> its parameters).
   */
  static async fromConfig(
    config: ToolsConfig = {},
    opts: { mcp?: McpToolSource; dynamicTools?: DynamicToolSpec[]; tools?: Record<string, unknown>; logger?: Logger } = {},
  ): Promise<ToolRouter> {
    const ctx: ToolFactoryContext = { config, dynamicTools: opts.dynamicTools ?? [] };
    if (opts.mcp) ctx.mcp = opts.mcp;
    const builder = new ToolRegistryBuilder(opts.logger ? { logger: opts.logger } : {});
    const add = (registrations: ToolRegistration[]): void => {
      for (const { spec, handler, supportsParallel, aliases } of registrations) {
        builder.pushSpecWithParallelSupport(spec, supportsParallel).registerHandler(specName(spec), handler);
        for (const alias of aliases ?? []) builder.registerAlias(alias, specName(spec));
      }
    };
    for (const factory of builtinToolFactories) add(factory(config, ctx));
    for (const [name, params] of Object.entries(opts.tools ?? {})) {
      const factory = toolFactory(name);
      if (!factory) throw new Error(`unknown tool factory: ${name}`);
      add(factory(params, ctx));
    }
    const { specs, registry } = builder.build();
    return new ToolRouter(registry, specs, opts.mcp, opts.logger ? { logger: opts.logger } : {});
  }

  /** Every tool offered to the model now: registered specs, then the MCP tools listed now. */
  specs(): ConfiguredToolSpec[] {
    if (!this.mcp) return [...this.configuredSpecs];
    const mcpSpecs = this.mcp.configuredSpecs().filter((c) => {
      const name = specName(c.spec);
      if (!this.registry.lookup(name)) return true;
      if (!this.shadowed.has(name)) {
        this.shadowed.add(name);
        this.logger?.warn({ toolName: name }, "an MCP tool has the name of a registered tool; the registered tool is offered");
      }
      return false;
    });
    return [...this.configuredSpecs, ...mcpSpecs];
  }

  /** Null for items that are not tool calls; throws `FunctionCallError` for broken tool items. */
  buildToolCall(item: ResponseItem | UnknownItem): ToolCall | null {
    return buildToolCall(item, this.resolveMcp);
  }

  /** A registered tool wins over an MCP tool listed later under the same name. */
  private readonly resolveMcp = (name: string): McpToolRef | undefined =>
    this.mcp && !this.registry.lookup(name) ? this.mcp.resolve(name) : undefined;

  /** By spec; an unknown name is not parallel-safe. */
  toolSupportsParallel(toolName: string): boolean {
    const flag = this.registry.specSupportsParallel(toolName);
    if (flag !== undefined) return flag;
    return this.mcp?.resolve(toolName)?.supportsParallel ?? false;
  }

  /**
   * Read-only to an MCP client: a registered tool that is parallel-safe and never mutates (no
   * `isMutating`); an MCP tool only by its server's `readOnlyHint`.
   */
  toolIsReadOnly(toolName: string): boolean {
    const registered = this.registry.lookup(toolName);
    if (registered) return registered.parallel && !registered.handler.isMutating;
    return this.mcp?.resolve(toolName)?.annotations?.readOnlyHint === true;
  }

  /** The spec flag, then the handler's per-call say (which may only downgrade). */
  callSupportsParallel(call: ToolCall): boolean {
    const resolved = this.resolve(call);
    if (!resolved?.parallel) return false;
    return resolved.handler.supportsParallel ? resolved.handler.supportsParallel(call) === true : true;
  }

  private resolve(call: ToolCall): RegisteredTool<Ctx> | undefined {
    const registered = this.registry.lookup(call.toolName);
    if (registered) return registered;
    if (call.payload.kind !== "mcp" || !this.mcp) return undefined;
    const ref = this.mcp.resolve(call.toolName);
    if (!ref) return undefined;
    return {
      handler: this.mcp.handler as ToolHandler<Ctx>,
      validate: ref.inputSchema ? this.validators.validatorFor(ref.inputSchema, call.toolName, "2020-12") : null,
      parallel: ref.supportsParallel,
    };
  }

  /**
   * Runs one call to completion: handler lookup, payload check, argument validation, the gate
   * for mutating calls, the handler, output conversion and truncation. Every error but
   * `Fatal` becomes a failure output.
   */
  async dispatch(call: ToolCall, opts: DispatchOptions<Ctx>): Promise<DispatchResult> {
    const { turn } = opts;
    const timing = { gateWaitMs: 0, handlerMs: 0 };
    const policy = turn.truncationPolicy;
    try {
      const resolved = this.resolve(call);
      if (!resolved) {
        const message =
          call.payload.kind === "custom" ? `unsupported custom tool call: ${call.toolName}` : `unsupported call: ${call.toolName}`;
        return { item: failureItem(call, message, policy), success: false, timing };
      }
      const { handler } = resolved;
      if (!handlerMatchesKind(handler, call.payload)) {
        throw FunctionCallError.fatal(`tool ${call.toolName} invoked with incompatible payload`);
      }
      const invocation = new Invocation(call, invocationArgs(call, resolved.validate), opts);
      if (handler.isMutating) {
        if (await handler.isMutating(invocation)) {
          const gateStart = now();
          await turn.toolCallGate.waitReady(opts.signal);
          timing.gateWaitMs = now() - gateStart;
        }
        // The call may have been aborted while the classification was pending: never start it then.
        opts.signal.throwIfAborted();
      }
      const handlerStart = now();
      opts.onStart?.(invocation, handler, handlerStart);
      let output: ToolOutput;
      try {
        output = await handler.handle(invocation);
      } finally {
        timing.handlerMs = now() - handlerStart;
      }
      return outputToResult(call, output, policy, timing);
    } catch (err) {
      if (FunctionCallError.isFatal(err)) throw err;
      return { item: failureItem(call, this.errorMessage(call, err, turn, opts), policy), success: false, timing };
    }
  }

  async dispatchToolCall(call: ToolCall, opts: DispatchOptions<Ctx>): Promise<ResponseInputItem> {
    return (await this.dispatch(call, opts)).item;
  }

  private errorMessage(call: ToolCall, err: unknown, turn: TurnContext, opts: DispatchOptions<Ctx>): string {
    if (err instanceof FunctionCallError) return err.message;
    if (opts.signal.aborted) return "aborted by user";
    turn.logger.error({ err, callId: call.callId, toolName: call.toolName }, "tool handler threw");
    const message = err instanceof Error ? err.message : String(err);
    return `tool ${call.toolName} failed: ${message}`;
  }
}

/**
 * A class rather than a literal: V8 builds it far faster than an object literal with a getter.
 * `signal` is read through from the dispatch options, so a signal the caller creates lazily is
 * only created when a handler uses it (it lives on the prototype: copy it explicitly when
 * cloning an invocation).
 */
class Invocation<Ctx> implements ToolInvocation<Ctx> {
  readonly callId: string;
  readonly toolName: string;
  readonly payload: ToolCall["payload"];
  readonly turn: TurnContext;
  readonly context: Ctx;

  constructor(
    call: ToolCall,
    readonly args: unknown,
    private readonly opts: DispatchOptions<Ctx>,
  ) {
    this.callId = call.callId;
    this.toolName = call.toolName;
    this.payload = call.payload;
    this.turn = opts.turn;
    this.context = opts.context as Ctx;
  }

  get signal(): AbortSignal {
    return this.opts.signal;
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
