export * from "./mcpServer.js";
export * from "./mcpHttp.js";
export * from "./sidecar.js";
export { JsonRpcError, JsonRpcErrorCode } from "./jsonRpc.js";
