export { READ_FILE_SPEC, ReadFileHandler, type ReadFileToolConfig, readFileToolFactory } from "./handler.js";
