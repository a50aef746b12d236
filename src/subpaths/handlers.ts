/**
 * `toolcall-runtime/handlers`: the built-in handlers and their specs, for an embedder that
 * registers them itself instead of through `createToolRouter` (DESIGN section 5), with the
 * helpers a handler uses to bound its output and to know what the session has read.
 */
export { DEFAULT_TRUNCATION_POLICY, truncateBody, truncateText } from "../turn/index.js";
export { FileReadLedger, type FileSnapshot } from "../registry/index.js";
export {
  ExecHandler,
  isKnownSafeCommand,
  SHELL_COMMAND_SPEC,
  SHELL_SPEC,
  ShellCommandHandler,
  ShellHandler,
  type ExecHandlerOptions,
  type ExecRequest,
  type ShellArgs,
  type ShellCommandArgs,
  type ShellToolConfig,
} from "../handlers/shell/index.js";
export {
  EXEC_COMMAND_SPEC,
  ExecCommandHandler,
  ExecSessionManager,
  WRITE_STDIN_SPEC,
  WriteStdinHandler,
  type ExecCommandArgs,
  type UnifiedExecToolConfig,
  type WriteStdinArgs,
} from "../handlers/exec_command/index.js";
export {
  APPLY_PATCH_FREEFORM_SPEC,
  APPLY_PATCH_FUNCTION_SPEC,
  ApplyPatchHandler,
  type ApplyPatchToolConfig,
} from "../handlers/apply_patch/index.js";
export { SkillHandler, skillSpec, type SkillToolConfig } from "../handlers/skill/index.js";
export { READ_FILE_SPEC, ReadFileHandler } from "../handlers/read_file/index.js";
export { EDIT_FILE_SPEC, EditFileHandler, type EditFileToolConfig } from "../handlers/edit_file/index.js";
export { WRITE_FILE_SPEC, WriteFileHandler, type WriteFileToolConfig } from "../handlers/write_file/index.js";
export { GLOB_SPEC, GlobHandler, type GlobOptions, type GlobToolConfig } from "../handlers/glob/index.js";
export { LIST_DIR_SPEC, ListDirHandler } from "../handlers/list_dir/index.js";
export { GREP_FILES_SPEC, GrepFilesHandler, type GrepFilesOptions } from "../handlers/grep_files/index.js";
export { DEFAULT_MAX_IMAGE_BYTES, VIEW_IMAGE_SPEC, ViewImageHandler } from "../handlers/view_image/index.js";
export { UPDATE_PLAN_SPEC, UpdatePlanHandler } from "../handlers/update_plan/index.js";
export { DEFAULT_DYNAMIC_TOOL_TIMEOUT_MS, DynamicToolHandler } from "../handlers/dynamic/index.js";
export { TEST_SYNC_TOOL_SPEC, TestSyncHandler } from "../handlers/test_sync_tool/index.js";
export {
  LIST_MCP_RESOURCE_TEMPLATES_SPEC,
  LIST_MCP_RESOURCES_SPEC,
  READ_MCP_RESOURCE_SPEC,
} from "../handlers/mcp_resources/index.js";
