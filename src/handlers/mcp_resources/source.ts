import type {
  ListResourcesResult,
  ListResourceTemplatesResult,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
} from "@modelcontextprotocol/sdk/types.js";
import type { McpToolSource } from "../../registry/index.js";

/** The resource side of an MCP source (`McpConnectionManager` has it). */
export interface McpResourceSource {
  serverNames(): string[];
  listResources(server: string, cursor?: string, signal?: AbortSignal): Promise<ListResourcesResult>;
  listResourceTemplates(server: string, cursor?: string, signal?: AbortSignal): Promise<ListResourceTemplatesResult>;
  readResource(server: string, uri: string, signal?: AbortSignal): Promise<ReadResourceResult>;
  listAllResources(signal?: AbortSignal): Promise<Map<string, Resource[]>>;
  listAllResourceTemplates(signal?: AbortSignal): Promise<Map<string, ResourceTemplate[]>>;
}

export function isResourceSource(mcp: McpToolSource | undefined): mcp is McpToolSource & McpResourceSource {
  const m = mcp as Partial<McpResourceSource> | undefined;
  return (
    typeof m?.listResources === "function" &&
    typeof m.readResource === "function" &&
    typeof m.listAllResources === "function"
  );
}

/** Blank strings mean "not given" (models send `""` for optional fields). */
export function optionalString(args: Record<string, unknown>, key: string): string | undefined {
  const v = args[key];
  return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
}
