import type { ArgumentValidator } from "./arguments.js";
import type { ToolHandler } from "./handler.js";
import type { ToolMiddleware } from "./middleware.js";

/** A registered tool: its handler, the validator compiled from its spec, its parallel flag. */
export interface RegisteredTool<Ctx = unknown> {
  handler: ToolHandler<Ctx>;
  validate: ArgumentValidator | null;
  /** The spec's `supportsParallelToolCalls`; false for a handler without a spec. */
  supportsParallel: boolean;
  /** The spec's own deadline; undefined: the runtime's `toolTimeoutMs`. */
  timeoutMs?: number | undefined;
  /** Wrapped around the handler, outermost first; empty for most tools. */
  middleware: readonly ToolMiddleware<Ctx>[];
}

/** A middleware and the exact tool names it wraps (undefined: every tool). */
export interface MiddlewareEntry<Ctx> {
  mw: ToolMiddleware<Ctx>;
  tools: ReadonlySet<string> | undefined;
}

const NO_MIDDLEWARE: readonly never[] = Object.freeze([]);

/** Handlers by exact tool name. Built by `ToolRegistryBuilder`. */
export class ToolRegistry<Ctx = unknown> {
  private readonly chains = new Map<string, readonly ToolMiddleware<Ctx>[]>();

  /** Use `ToolRegistryBuilder.build()`. */
  constructor(
    private readonly tools: ReadonlyMap<string, RegisteredTool<Ctx>>,
    private readonly middleware: readonly MiddlewareEntry<Ctx>[] = [],
  ) {}

  /** The shortest spec deadline (`pushSpec(spec, { timeoutMs })`), if any tool sets one. */
  get shortestTimeoutMs(): number | undefined {
    let shortest: number | undefined;
    for (const tool of this.tools.values()) {
      if (tool.timeoutMs !== undefined && (shortest === undefined || tool.timeoutMs < shortest))
        shortest = tool.timeoutMs;
    }
    return shortest;
  }

  lookup(name: string): RegisteredTool<Ctx> | undefined {
    return this.tools.get(name);
  }

  /** The middleware wrapping `name`, outermost first: for tools known only by name (MCP). */
  middlewareFor(name: string): readonly ToolMiddleware<Ctx>[] {
    if (this.middleware.length === 0) return NO_MIDDLEWARE;
    let chain = this.chains.get(name);
    if (!chain) {
      chain = this.middleware.filter((m) => !m.tools || m.tools.has(name)).map((m) => m.mw);
      this.chains.set(name, chain);
    }
    return chain;
  }
}
