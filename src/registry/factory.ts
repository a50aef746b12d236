import type { ToolSpec } from "../protocol/spec.js";
import type { DynamicToolSpec, ToolsConfig } from "./config.js";
import type { ToolHandler } from "./handler.js";
import type { McpToolSource } from "./mcpSource.js";

/** One tool a factory adds: its spec, its handler and whether calls may run in parallel. */
export interface ToolRegistration<Ctx = unknown> {
  spec: ToolSpec;
  handler: ToolHandler<Ctx>;
  supportsParallel: boolean;
  /** Further names the same handler answers to (e.g. `local_shell` for `shell`). */
  aliases?: string[];
}

/** What a factory may look at besides its own parameters. */
export interface ToolFactoryContext {
  config: ToolsConfig;
  mcp?: McpToolSource;
  dynamicTools: DynamicToolSpec[];
}

/** Adds tools by name with parameters, the way the built-ins are added. */
export type ToolFactory<Params = unknown, Ctx = unknown> = (
  params: Params,
  ctx: ToolFactoryContext,
) => ToolRegistration<Ctx>[];

const factories = new Map<string, ToolFactory<never, unknown>>();

/** Registers a named factory for `ToolRouter.fromConfig(..., { tools })`; a duplicate name throws. */
export function registerToolFactory<Params>(name: string, factory: ToolFactory<Params, unknown>): void {
  if (factories.has(name)) throw new Error(`duplicate tool factory: ${name}`);
  factories.set(name, factory as ToolFactory<never, unknown>);
}

export function toolFactory(name: string): ToolFactory<unknown, unknown> | undefined {
  return factories.get(name) as ToolFactory<unknown, unknown> | undefined;
}

/** @internal for tests: forget a plugin factory. */
export function unregisterToolFactory(name: string): boolean {
  return factories.delete(name);
}
