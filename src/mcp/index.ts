export * from "./config.js";
export * from "./names.js";
export {
  McpCallError,
  MAX_RESTART_ATTEMPTS,
  type CallOptions,
  type McpElicitationHandler,
  type McpRequestContext,
  type McpSamplingHandler,
} from "./connection.js";
export * from "./manager.js";
export type { McpToolInfo } from "./tools.js";
export * from "./handler.js";
export { McpAuthRequiredError, OAuthTokenFile, type McpAuthorizationHandler } from "./oauth.js";
