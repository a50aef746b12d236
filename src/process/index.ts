/**
 * Process groups, host-signal handling and child reaping, for every part that spawns: the
 * shell's commands and MCP stdio servers.
 */
export {
  childSessions,
  signalSessions,
  DEFAULT_KILL_GRACE_MS,
  killProcessGroup,
  processAlive,
  processGroupAlive,
  signalProcessGroup,
  terminateProcessGroup,
} from "./groups.js";
export { trackProcessGroup, type TrackOptions } from "./hostExit.js";
export { childClosed } from "./reap.js";
export { spawnGroup, type GroupChild } from "./spawn.js";
export { cachedLookup, findExecutable, forgetProgram, programProblem } from "./which.js";
