/**
 * `toolcall-runtime/server`: serving a router's tools to others (DESIGN section 13): MCP over
 * HTTP, the tool service behind it, and the sidecar that `toolcall serve --stdio` runs.
 * `createMcpServer` is in the package root.
 */
export {
  JsonRpcError,
  JsonRpcErrorCode,
  McpToolService,
  serveMcpHttp,
  SidecarServer,
  type McpHttpOptions,
  type McpHttpServer,
  type McpToolServiceOptions,
  type SidecarInitializeParams,
  type SidecarOptions,
  type SidecarSession,
} from "../server/index.js";
