import type { ArgumentValidator } from "./arguments.js";
import type { ToolHandler } from "./handler.js";

/** A registered tool: its handler, the validator compiled from its spec, its parallel flag. */
export interface RegisteredTool<Ctx = unknown> {
  handler: ToolHandler<Ctx>;
  validate: ArgumentValidator | null;
  /** The spec's flag; false for a handler without a spec. */
  parallel: boolean;
}

/** Handlers by exact tool name. Built by `ToolRegistryBuilder`. */
export class ToolRegistry<Ctx = unknown> {
  /** @internal use `ToolRegistryBuilder.build()` */
  constructor(
    private readonly tools: ReadonlyMap<string, RegisteredTool<Ctx>>,
    private readonly parallel: ReadonlyMap<string, boolean>,
  ) {}

  handler(name: string): ToolHandler<Ctx> | undefined {
    return this.tools.get(name)?.handler;
  }

  /** @internal */
  lookup(name: string): RegisteredTool<Ctx> | undefined {
    return this.tools.get(name);
  }

  /** The spec's parallel flag; undefined for names without a spec. */
  specSupportsParallel(name: string): boolean | undefined {
    return this.parallel.get(name);
  }
}

