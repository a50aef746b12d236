import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";
import type { ConfiguredToolSpec, FunctionToolSpec, JsonSchema } from "../protocol/index.js";
import type { McpToolRef } from "../registry/index.js";
import type { McpServerConfig } from "./config.js";
import type { ToolNamer } from "./names.js";

/**
 * A listed MCP tool behind its qualified name. It is its own `McpToolRef`: `resolve` returns
 * it as is, built and frozen once per listing rather than per call.
 */
export interface McpToolInfo extends Readonly<McpToolRef> {
  readonly inputSchema: JsonSchema;
  readonly spec: FunctionToolSpec;
  /** The server's own listing of the tool (output schema, title, annotations), for proxies. */
  readonly definition: Tool;
}

/** One ready server's tools, as its last `tools/list` gave them. */
export interface ServerListing {
  server: string;
  config: McpServerConfig;
  tools: readonly Tool[];
  allowed: (tool: string) => boolean;
}

/** Every server's tools by qualified name, rebuilt whole on each listing. */
export interface ToolTable {
  tools: Map<string, McpToolInfo>;
  /**
   * Tools `enabledTools` / `disabledTools` filter out: never listed, but resolved so a call is
   * refused with the DESIGN text rather than `unsupported call`.
   */
  disabled: Map<string, Readonly<McpToolRef>>;
  specs: ConfiguredToolSpec[];
}

/** `enabled_tools` (when given) minus `disabled_tools`, as sets: checked on every call. */
export function toolFilter(config: McpServerConfig): (tool: string) => boolean {
  const enabled = config.enabledTools && new Set(config.enabledTools);
  const disabled = new Set(config.disabledTools);
  return (tool) => (enabled === undefined || enabled.has(tool)) && !disabled.has(tool);
}

/** Codex (and the OpenAI API) want `properties` on object schemas; some servers omit it. */
function providerSchema(schema: JsonSchema): JsonSchema {
  return schema["properties"] == null ? { ...schema, properties: {} } : schema;
}

/**
 * Qualifies every listed tool (names stay as `namer` gave them before) and builds its record. `previous` is the table being replaced:
 * an unchanged schema keeps its object, so the router's compiled validator is reused.
 */
export function buildToolTable(
  listings: readonly ServerListing[],
  previous: ReadonlyMap<string, McpToolInfo>,
  namer: ToolNamer,
  logger: Logger,
): ToolTable {
  type Entry = { server: string; tool: string; def: Tool; config: McpServerConfig; allowed: boolean };
  const allowed: Entry[] = [];
  const filtered: Entry[] = [];
  for (const { server, config, tools, allowed: isAllowed } of listings) {
    for (const def of tools) {
      const entry = { server, tool: def.name, def, config, allowed: isAllowed(def.name) };
      (entry.allowed ? allowed : filtered).push(entry);
    }
  }
  // Filtered tools are qualified after every allowed one, so they never change an allowed
  // tool's name or collision hash; they only get names of their own for `resolve`.
  const onSkip = (raw: string): void => {
    logger.warn({ tool: raw }, "MCP server listed a tool twice");
  };
  const qualified = new Map([...namer.qualify(allowed, onSkip), ...namer.qualify(filtered, onSkip)]);
  const table: ToolTable = { tools: new Map(), disabled: new Map(), specs: [] };
  for (const [name, { server, tool, def, config, allowed: isAllowed }] of qualified) {
    if (!isAllowed) {
      // No schema: the call must reach the manager, which refuses it with the DESIGN text,
      // rather than fail argument validation. Refusing touches nothing, so it may overlap.
      table.disabled.set(name, Object.freeze({ server, tool, supportsParallel: true }));
      continue;
    }
    const old = previous.get(name);
    const inputSchema =
      old && old.server === server && JSON.stringify(old.inputSchema) === JSON.stringify(def.inputSchema)
        ? old.inputSchema
        : (def.inputSchema as JsonSchema);
    const supportsParallel = def.annotations?.readOnlyHint === true || config.supportsParallelToolCalls === true;
    const spec: FunctionToolSpec = {
      type: "function",
      name,
      description: def.description ?? "",
      parameters: providerSchema(inputSchema),
      strict: false,
    };
    const info: McpToolInfo = {
      server,
      tool,
      inputSchema,
      supportsParallel,
      spec,
      definition: def,
      ...(def.annotations && { annotations: def.annotations }),
    };
    table.tools.set(name, Object.freeze(info));
    table.specs.push({ spec, supportsParallelToolCalls: supportsParallel });
  }
  return table;
}
