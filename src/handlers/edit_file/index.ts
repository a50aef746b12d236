export { EDIT_FILE_SPEC, EditFileHandler, type EditFileToolConfig, editFileToolFactory } from "./handler.js";
