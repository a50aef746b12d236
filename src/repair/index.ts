export { NOT_PLAIN, plainArguments, prepareArguments } from "./arguments.js";
export { withRepairNote, reportRepairs } from "./note.js";
export { suggestTool } from "./suggest.js";
