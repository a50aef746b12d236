export {
  GREP_FILES_SPEC,
  type GrepFilesOptions,
  GrepFilesHandler,
  type GrepFilesToolConfig,
  grepFilesToolFactory,
} from "./handler.js";
/** Shared with the glob tool: the gitignore-aware walk, newest-first ordering and the glob dialect. */
export { walkFiles, type WalkOptions } from "./walk.js";
export { newestFirst } from "./fallback.js";
export { compileGlob, type GlobRule } from "./glob.js";
