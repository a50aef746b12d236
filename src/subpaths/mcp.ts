/**
 * `toolcall-runtime/mcp`: MCP client building blocks past `McpConnectionManager` (package
 * root): config files in every format people have (DESIGN section 14), the errors a server or
 * a call fails with, and the handler that puts a server's tool in a registry.
 */
export {
  loadMcpConfig,
  McpAuthRequiredError,
  McpCallError,
  McpConfigError,
  McpHandler,
  McpStartupError,
  parseMcpConfigJson,
  parseMcpConfigToml,
  validateMcpServersConfig,
  type McpToolInfo,
} from "../mcp/index.js";
export { type McpToolRef, type McpToolSource } from "../registry/index.js";
export { type McpResourceSource } from "../handlers/mcp_resources/index.js";
