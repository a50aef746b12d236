/**
 * Process groups, host-signal handling and child reaping, for every part that spawns: the
 * shell's commands and MCP stdio servers; the network bridge a sandboxed command runs under.
 */
export {
  childSessions,
  signalSessions,
  DEFAULT_KILL_GRACE_MS,
  killProcessGroup,
  processAlive,
  processGroupAlive,
  signalProcessGroup,
  interruptGroup,
  terminateProcessGroup,
} from "./groups.js";
export { onHostExit, trackProcessGroup, type TrackOptions } from "./hostExit.js";
export { identityDead, ownIdentity, type ProcessIdentity } from "./identity.js";
export { childClosed } from "./reap.js";
export { releaseGroup, runProgram, spawnDetached, spawnGroup, type GroupChild, type ProgramResult } from "./spawn.js";
export {
  BRIDGE_MARKER,
  proxyEnv,
  startNetworkBridge,
  type NetworkBridge,
  type NetworkBridgeOptions,
} from "./netBridge.js";
export { NET_BRIDGE_ENTRY, netBridgeArgv } from "./netBridgeEntry.js";
export { watchCommand } from "./watchdog.js";
export { cachedLookup, findExecutable, forgetProgram, programProblem } from "./which.js";
