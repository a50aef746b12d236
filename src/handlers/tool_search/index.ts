import { specName, type ConfiguredToolSpec, type FunctionToolSpec, type ToolOutput } from "../../protocol/index.js";
import type { McpToolSource, ToolActivation, ToolFactory, ToolHandler, ToolInvocation } from "../../registry/index.js";
import { ToolIndex } from "./rank.js";

interface Listed {
  name: string;
  description: string;
  parameters: unknown;
}

const DEFAULT_LIMIT = 5;

const TOOL_SEARCH_SPEC: FunctionToolSpec = {
  type: "function",
  annotations: { readOnlyHint: true },
  name: "tool_search",
  description:
    "Searches the tools that are not offered yet (the MCP servers' tools) by name and description, and makes the ones it returns available from your next request. Search with a few keywords for what you need to do.",
  strict: false,
  parameters: {
    type: "object",
    properties: {
      query: { type: "string", description: "Keywords for the tool you need." },
      limit: { type: "integer", minimum: 1, maximum: 20, description: "At most this many tools (default 5)." },
    },
    required: ["query"],
    additionalProperties: false,
  },
};

/** Ranks the MCP tools listed now, activates the matches and answers with their specs. */
class ToolSearchHandler implements ToolHandler {
  readonly kind = "function" as const;
  /** The index of the tool list it was built from (the MCP manager replaces the list when it changes). */
  private index: { from: ConfiguredToolSpec[]; index: ToolIndex<Listed> } | undefined;

  constructor(
    private readonly mcp: McpToolSource,
    private readonly activation: ToolActivation,
  ) {}

  handle(inv: ToolInvocation): Promise<ToolOutput> {
    const { query, limit = DEFAULT_LIMIT } = inv.args as { query: string; limit?: number };
    const found = this.indexNow().search(query, limit);
    this.activation.activate(found.map((t) => t.name));
    const body =
      found.length === 0
        ? `No tool matches ${JSON.stringify(query)}; try other keywords.`
        : `Found ${found.length} tool(s); they can be called from your next request:\n${found.map((t) => JSON.stringify(t)).join("\n")}`;
    return Promise.resolve({ kind: "function", body, success: found.length > 0 });
  }

  private indexNow(): ToolIndex<Listed> {
    const specs = this.mcp.configuredSpecs();
    if (this.index?.from !== specs) {
      const tools = specs.flatMap(({ spec }) =>
        spec.type === "function"
          ? [{ name: specName(spec), description: spec.description, parameters: spec.parameters }]
          : [],
      );
      this.index = { from: specs, index: new ToolIndex(tools) };
    }
    return this.index.index;
  }
}

export interface ToolSearchConfig {
  /** MCP tools are offered only through `tool_search` (schemas out of every request until found). */
  deferTools?: boolean;
}

export const toolSearchFactory: ToolFactory<ToolSearchConfig> = (config, ctx) =>
  config.deferTools === true && ctx.mcp && ctx.activation
    ? [{ spec: TOOL_SEARCH_SPEC, handler: new ToolSearchHandler(ctx.mcp, ctx.activation), supportsParallel: true }]
    : [];

export { rankTools, stem, ToolIndex } from "./rank.js";
