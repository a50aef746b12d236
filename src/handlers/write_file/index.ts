export { WRITE_FILE_SPEC, WriteFileHandler, type WriteFileToolConfig, writeFileToolFactory } from "./handler.js";
/** Shared with edit_file: changing one whole file for a call (ledger, sandbox, atomic write, line endings). */
export { lineEndingOf, openForChange, withLineEnding, writeForCall } from "./change.js";
