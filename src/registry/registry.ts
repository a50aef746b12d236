import type { ArgumentValidator } from "./arguments.js";
import type { ToolHandler } from "./handler.js";

/** A registered tool: its handler, the validator compiled from its spec, its parallel flag. */
export interface RegisteredTool<Ctx = unknown> {
  handler: ToolHandler<Ctx>;
  validate: ArgumentValidator | null;
  /** The spec's `supportsParallelToolCalls`; false for a handler without a spec. */
  supportsParallel: boolean;
}

/** Handlers by exact tool name. Built by `ToolRegistryBuilder`. */
export class ToolRegistry<Ctx = unknown> {
  /** Use `ToolRegistryBuilder.build()`. */
  constructor(private readonly tools: ReadonlyMap<string, RegisteredTool<Ctx>>) {}

  lookup(name: string): RegisteredTool<Ctx> | undefined {
    return this.tools.get(name);
  }
}
