export { LIST_DIR_SPEC, ListDirHandler, type ListDirToolConfig, listDirToolFactory } from "./handler.js";
