export {
  DEFAULT_DYNAMIC_TOOL_TIMEOUT_MS,
  DynamicToolHandler,
  type DynamicToolsConfig,
  dynamicToolsFactory,
} from "./handler.js";
