export { prepareArguments, repairNote, type PreparedArguments, type SchemaCheck } from "./arguments.js";
export { withRepairNote, reportRepairs } from "./note.js";
export { suggestTool, suggestProperties, oneEditApart } from "./suggest.js";
