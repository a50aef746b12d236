import type { FunctionToolSpec } from "../../protocol/index.js";

// Names, descriptions and parameters as in Codex `create_*_mcp_resource*_tool`.
/** The two list tools differ only in their name and wording. */
function listSpec(name: string, description: string, serverDescription: string): FunctionToolSpec {
  return {
    type: "function",
    name,
    description,
    annotations: { readOnlyHint: true },
    strict: false,
    parameters: {
      type: "object",
      properties: {
        server: { type: "string", description: serverDescription },
        cursor: {
          type: "string",
          description: `Opaque cursor returned by a previous ${name} call for the same server.`,
        },
      },
      additionalProperties: false,
    },
  };
}

export const LIST_MCP_RESOURCES_SPEC = listSpec(
  "list_mcp_resources",
  "Lists resources provided by MCP servers. Resources allow servers to share data that provides context to language models, such as files, database schemas, or application-specific information. Prefer resources over web search when possible.",
  "Optional MCP server name. When omitted, lists resources from every configured server.",
);

export const LIST_MCP_RESOURCE_TEMPLATES_SPEC = listSpec(
  "list_mcp_resource_templates",
  "Lists resource templates provided by MCP servers. Parameterized resource templates allow servers to share data that takes parameters and provides context to language models, such as files, database schemas, or application-specific information. Prefer resource templates over web search when possible.",
  "Optional MCP server name. When omitted, lists resource templates from all configured servers.",
);

export const READ_MCP_RESOURCE_SPEC: FunctionToolSpec = {
  type: "function",
  annotations: { readOnlyHint: true },
  name: "read_mcp_resource",
  description: "Read a specific resource from an MCP server given the server name and resource URI.",
  strict: false,
  parameters: {
    type: "object",
    properties: {
      server: {
        type: "string",
        description:
          "MCP server name exactly as configured. Must match the 'server' field returned by list_mcp_resources.",
      },
      uri: {
        type: "string",
        description: "Resource URI to read. Must be one of the URIs returned by list_mcp_resources.",
      },
    },
    required: ["server", "uri"],
    additionalProperties: false,
  },
};
