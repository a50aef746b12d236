export { GLOB_SPEC, GlobHandler, type GlobOptions, type GlobToolConfig, globToolFactory } from "./handler.js";
