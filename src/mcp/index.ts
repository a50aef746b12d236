export * from "./config.js";
export * from "./names.js";
export { McpCallError, MAX_LIST_PAGES, MAX_RESTART_ATTEMPTS, type CallOptions } from "./connection.js";
export { ProcessGroupStdioTransport, type StdioLaunch } from "./stdioTransport.js";
export * from "./manager.js";
export * from "./handler.js";
