export { errorText, errorMessage, errorWithCause } from "./errorText.js";
export { formatSeconds, formatSecondsExact } from "./format.js";
export { ioErrorText } from "./ioError.js";
export { isRecord } from "./isRecord.js";
export { now, MAX_TIMER_MS, timerDelay } from "./clock.js";
export { looksBinary, READ_CHUNK_BYTES, readLines } from "./lines.js";
export { PACKAGE_VERSION } from "./version.js";
export { parseJsonc } from "./jsonc.js";
export { escapeXml } from "./xml.js";
export { toolcallHome } from "./toolcallHome.js";
export { reusedFor } from "./reused.js";
export { bashParserReady, loadBashParser } from "./bashParser.js";
export {
  needsBashParser,
  plainCommands,
  plainScriptCommands,
  scriptCommands,
  type ScriptCommand,
} from "./bashCommands.js";
export {
  asTableInput,
  checkConfig,
  describeValue,
  keyPath,
  unknownKeysMessage,
  type UnknownKeys,
} from "./configCheck.js";
export { coalesce } from "./coalesce.js";
