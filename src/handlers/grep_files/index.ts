export {
  GREP_FILES_SPEC,
  type GrepFilesOptions,
  GrepFilesHandler,
  type GrepFilesToolConfig,
  grepFilesToolFactory,
} from "./handler.js";
/** Shared with the glob tool: the gitignore-aware walk, ripgrep, newest-first ordering and the glob dialect. */
export { toSlash, walkFiles } from "./walk.js";
export { newestFirst } from "./fallback.js";
export { findRipgrep, ripgrepPaths } from "./ripgrep.js";
export { compileGlob } from "./glob.js";
