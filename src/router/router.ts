import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import {
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
  dispatchAwaited,
  PreparedCall,
  type DispatchOptions,
  type DispatchResult,
  type DispatchScope,
} from "../dispatch/index.js";
import {
  SchemaValidatorCache,
  type McpToolRef,
  type McpToolSource,
  type RegisteredTool,
  type ToolActivation,
  type ToolRegistry,
} from "../registry/index.js";
import { SessionLedger, type QuotaConfig, type ToolUsage } from "../ledger/index.js";
import type { SpillStore } from "../turn/index.js";
import { errorText } from "../util/index.js";
import { buildCall, ToolCallFailure, type BuiltToolCall } from "./buildToolCall.js";
import { withRiskField } from "./riskField.js";

/**
 * Turns model items into prepared calls and offers the tools' specs (Codex `ToolRouter`); the
 * pipeline that runs a call is `src/dispatch`. Building a router from a config is
 * `createToolRouter`'s job (src/toolset.ts).
 */
export class ToolRouter<Ctx = unknown> {
  private readonly validators: SchemaValidatorCache;
  private readonly logger: Logger | undefined;
  /** MCP tools shadowed by a registered tool of the same name, each reported once. */
  private readonly shadowed = new Set<string>();
  private specByName: Map<string, ToolSpec> | undefined;
  private readonly closers: ReadonlyArray<() => Promise<void>>;
  /** Tool groups and deferred tools: what is offered and callable now. */
  private readonly activation: ToolActivation | undefined;
  private closing: Promise<void> | undefined;
  /** The session this router holds: the `session_id` its hooks read. */
  readonly sessionId: string = randomUUID();
  /** What every call this router prepares shares in dispatch. */
  private readonly scope: DispatchScope<Ctx>;
  /** Quotas, loop detection and each tool's usage in this session (DESIGN section 18); the runtime reports answers to it. */
  readonly ledger: SessionLedger;

  constructor(
    private readonly registry: ToolRegistry<Ctx>,
    private readonly configuredSpecs: ConfiguredToolSpec[],
    private readonly mcp?: McpToolSource,
    opts: {
      logger?: Logger;
      closers?: ReadonlyArray<() => Promise<void>>;
      spill?: SpillStore;
      activation?: ToolActivation;
      /** Repair malformed arguments where the meaning is certain; default true. */
      repair?: boolean;
      /** Tool name or `*` pattern -> `{ perTurn, perSession }` calls allowed. */
      quotas?: QuotaConfig;
      /** The same call with the same result this many times in a row is not run again; 0: off; default 5. */
      loopLimit?: number;
    } = {},
  ) {
    this.validators = new SchemaValidatorCache(opts.logger);
    this.logger = opts.logger;
    this.closers = opts.closers ?? [];
    this.activation = opts.activation;
    this.ledger = new SessionLedger({
      ...(opts.quotas && { quotas: opts.quotas }),
      ...(opts.loopLimit !== undefined && { loopLimit: opts.loopLimit }),
    });
    this.scope = {
      sessionId: this.sessionId,
      spill: opts.spill,
      logger: opts.logger,
      unavailable: opts.activation ? (toolName, tool) => this.unavailable(toolName, tool) : undefined,
      repair: opts.repair !== false,
      ledger: this.ledger,
      offered: () => this.specs().map((c) => specName(c.spec)),
    };
  }

  /** What each tool cost in this session: calls, failures, denials, repairs, handler time, output size. */
  usage(): Record<string, ToolUsage> {
    return this.ledger.usage();
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
    return opts.riskField === true ? all.map((c) => withRiskField(c, this.mayMutate)) : all;
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

  /** Whether a tool may change things: its handler classifies calls, or the spec is not `readOnlyHint`. */
  private readonly mayMutate = (toolName: string, readOnlyHint: boolean | undefined): boolean => {
    const registered = this.registry.lookup(toolName);
    if (registered) return registered.handler.isMutating !== undefined && readOnlyHint !== true;
    return this.mcp?.resolve(toolName)?.annotations?.readOnlyHint !== true;
  };

  /** A registered tool not callable now (deferred, or its group inactive): the answer refusing it. */
  private unavailable(toolName: string, tool: RegisteredTool<Ctx>): string | undefined {
    const activation = this.activation;
    if (!activation || activation.isActive(toolName, tool.handler === this.mcp?.handler)) return undefined;
    return activation.groupFor(toolName) === undefined ? texts.toolDeferred(toolName) : texts.toolInactive(toolName);
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

  /** By its annotations (`idempotentHint`): may a call that may have run be run again? */
  toolIsIdempotent(toolName: string): boolean {
    const spec = this.registeredSpec(toolName);
    const annotations = spec
      ? "annotations" in spec
        ? spec.annotations
        : undefined
      : this.mcp?.resolve(toolName)?.annotations;
    return annotations?.idempotentHint === true;
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
   * Resolves an item once into what the runtime holds under the lock: a `PreparedCall`, a
   * `ToolCallFailure` value, or null for items that are not tool calls. Runs nothing.
   * `logger`: where a handler's failing `supportsParallel` is reported.
   */
  prepare(item: ResponseItem | UnknownItem, logger?: Logger): PreparedCall<Ctx> | ToolCallFailure | null {
    const built = this.tryBuildToolCall(item);
    return built === null || built instanceof ToolCallFailure ? built : this.prepareCall(built, logger);
  }

  /** `prepare` for a call already built. */
  prepareCall(call: ToolCall, logger: Logger | undefined = this.logger): PreparedCall<Ctx> {
    let tool: RegisteredTool<Ctx> | undefined;
    try {
      tool = this.toolFor(call);
    } catch (err) {
      return new PreparedCall(call, undefined, true, this.scope, err);
    }
    let exclusive = true;
    try {
      exclusive = !this.callSupportsParallel(call, tool);
    } catch (err) {
      logger?.warn(
        { err: errorText(err), callId: call.callId },
        "supportsParallel threw; running the call exclusively",
      );
    }
    return new PreparedCall(call, tool, exclusive, this.scope);
  }

  /**
   * Runs one call to completion through the dispatch pipeline (DESIGN section 3, steps a-h).
   * Every error but `Fatal` becomes a failure output; a fatal one rejects.
   */
  dispatch(call: ToolCall, opts: DispatchOptions<Ctx>): Promise<DispatchResult> {
    return dispatchAwaited(this.prepareCall(call), opts);
  }

  /** `dispatch(...).item`. */
  async dispatchToolCall(call: ToolCall, opts: DispatchOptions<Ctx>): Promise<ResponseInputItem> {
    return (await this.dispatch(call, opts)).item;
  }
}
