export {
  GREP_FILES_SPEC,
  type GrepFilesOptions,
  GrepFilesHandler,
  type GrepFilesToolConfig,
  grepFilesToolFactory,
} from "./handler.js";
