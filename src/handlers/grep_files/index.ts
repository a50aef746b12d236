export {
  GREP_FILES_SPEC,
  type GrepFilesOptions,
  GrepFilesHandler,
  type GrepFilesToolConfig,
  grepFilesToolFactory,
} from "./handler.js";
/** Shared with the glob tool: the gitignore-aware walk, newest-first ordering and the glob dialect. */
export { walkFiles } from "./walk.js";
export { newestFirst } from "./fallback.js";
export { compileGlob } from "./glob.js";
