import type { JsonSchema, ToolSpec } from "../protocol/index.js";
import type { SpillStore } from "../turn/index.js";
import type { ToolActivation } from "./activation.js";
import type { FileReadLedger } from "./fileReads.js";
import type { ToolHandler } from "./handler.js";
import type { McpToolSource } from "./mcpSource.js";
import type { ToolSpecInput } from "./schemaSpec.js";

/**
 * One tool a factory adds: its spec, its handler and whether calls may run in parallel. A
 * plugin's spec (`Spec = ToolSpecInput`) may give a function's `parameters` as a zod (or other
 * Standard) schema.
 */
export interface ToolRegistration<Ctx = unknown, Spec extends ToolSpecInput = ToolSpec> {
  spec: Spec;
  handler: ToolHandler<Ctx>;
  supportsParallel: boolean;
  /** Further names the same handler answers to (e.g. `local_shell` for `shell`). */
  aliases?: string[];
  /**
   * Ends what the tool keeps across turns (exec sessions): run once by `router.close()`, however
   * many registrations share it.
   */
  close?: () => Promise<void>;
}

/** A tool the embedder answers itself (event + `respondToDynamicToolCall`). */
export interface DynamicToolSpec {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

/** What a factory may look at besides its own parameters. */
export interface ToolFactoryContext {
  /** Tool groups and deferred tools (`ToolsConfig.groups`, `deferTools`): what is offered now. */
  activation?: ToolActivation;
  /** `ToolsConfig.spillDir`: where cut outputs are kept whole for the session. */
  spill?: SpillStore;
  mcp?: McpToolSource;
  dynamicTools: DynamicToolSpec[];
  /** What the session (the router) has read and written: `read_file` records, `edit_file` / `write_file` check. */
  fileReads: FileReadLedger;
}

/**
 * Adds tools from parameters, the way the built-ins are added. Factories are passed to
 * `createToolRouter` by name, never registered in a process-wide table: two routers in one
 * process see only their own.
 */
export type ToolFactory<Params = unknown, Ctx = unknown, Spec extends ToolSpecInput = ToolSpec> = (
  params: Params,
  ctx: ToolFactoryContext,
) => ToolRegistration<Ctx, Spec>[];
