import type { ToolFactoryContext, ToolRegistration } from "../../registry/index.js";
import { McpListHandler, RESOURCES, RESOURCE_TEMPLATES } from "./list.js";
import { McpReadResourceHandler } from "./read.js";
import { isResourceSource } from "./source.js";
import { LIST_MCP_RESOURCES_SPEC, LIST_MCP_RESOURCE_TEMPLATES_SPEC, READ_MCP_RESOURCE_SPEC } from "./definition.js";

export { LIST_MCP_RESOURCES_SPEC, LIST_MCP_RESOURCE_TEMPLATES_SPEC, READ_MCP_RESOURCE_SPEC };
export type { McpResourceSource } from "./source.js";

/** The three MCP resource tools (parallel-safe, read-only); none without an MCP manager. */
export function mcpResourceToolsFactory(_config: unknown, ctx: ToolFactoryContext): ToolRegistration[] {
  const source = ctx.mcp;
  if (!isResourceSource(source)) return [];
  return [
    { spec: LIST_MCP_RESOURCES_SPEC, handler: new McpListHandler(source, RESOURCES), supportsParallel: true },
    {
      spec: LIST_MCP_RESOURCE_TEMPLATES_SPEC,
      handler: new McpListHandler(source, RESOURCE_TEMPLATES),
      supportsParallel: true,
    },
    { spec: READ_MCP_RESOURCE_SPEC, handler: new McpReadResourceHandler(source), supportsParallel: true },
  ];
}
