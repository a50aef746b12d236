import type { ToolFactory } from "../registry/factory.js";
import type { ToolsConfig } from "../registry/config.js";
import { shellToolFactory } from "./shell/index.js";
import { applyPatchToolFactory } from "./apply_patch/handler.js";
import { readFileToolFactory } from "./read_file/handler.js";
import { listDirToolFactory } from "./list_dir/handler.js";
import { grepFilesToolFactory } from "./grep_files/handler.js";
import { viewImageToolFactory } from "./view_image/handler.js";
import { updatePlanToolFactory } from "./update_plan/handler.js";
import { mcpResourceToolsFactory } from "./mcp_resources/index.js";
import { dynamicToolsFactory } from "./dynamic/handler.js";
import { testSyncToolFactory } from "./test_sync_tool/handler.js";

/**
 * The built-in tools, in the order their specs are offered. Each factory reads the
 * `ToolsConfig` and returns the registrations it adds (none when its tool is switched off).
 */
export const builtinToolFactories: ReadonlyArray<ToolFactory<ToolsConfig>> = [
  shellToolFactory,
  applyPatchToolFactory,
  readFileToolFactory,
  listDirToolFactory,
  grepFilesToolFactory,
  viewImageToolFactory,
  updatePlanToolFactory,
  mcpResourceToolsFactory,
  dynamicToolsFactory,
  testSyncToolFactory,
];
