/**
 * toolcall-runtime: executes the tool calls a language model emits in a coding-agent turn.
 * Layers: protocol <- turn <- registry <- router <- runtime; handlers and mcp plug in; server
 * serves a router's tools over MCP.
 */
export * from "./protocol/index.js";
export * from "./turn/index.js";
export * from "./registry/index.js";
export * from "./router/index.js";
export * from "./runtime/index.js";
export * from "./handlers/shell/index.js";
export * from "./handlers/apply_patch/index.js";
export * from "./mcp/index.js";
export * from "./server/index.js";
export { mcpResourceToolsFactory, type McpResourceSource } from "./handlers/mcp_resources/index.js";
export { ReadFileHandler, READ_FILE_SPEC } from "./handlers/read_file/handler.js";
export { ListDirHandler, LIST_DIR_SPEC } from "./handlers/list_dir/handler.js";
export { GrepFilesHandler, GREP_FILES_SPEC, type GrepFilesOptions } from "./handlers/grep_files/handler.js";
export { ViewImageHandler, VIEW_IMAGE_SPEC, DEFAULT_MAX_IMAGE_BYTES } from "./handlers/view_image/handler.js";
export { UpdatePlanHandler, UPDATE_PLAN_SPEC } from "./handlers/update_plan/handler.js";
export { DynamicToolHandler, DEFAULT_DYNAMIC_TOOL_TIMEOUT_MS } from "./handlers/dynamic/handler.js";
export { TestSyncHandler, TEST_SYNC_TOOL_SPEC } from "./handlers/test_sync_tool/handler.js";
