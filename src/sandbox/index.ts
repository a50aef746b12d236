/**
 * Where commands run and files are written (DESIGN section 12): the local and bubblewrap
 * environments, the environment policy, workspace roots, and running a command to its end.
 */
export { validateDomainPatterns } from "./domains.js";
export {
  createExecEnvironment,
  environmentOf,
  filesOf,
  validateSandboxPolicy,
  type ExecEnvironmentOptions,
} from "./create.js";
export { environmentFilter, validateEnvironmentPolicy } from "./envPolicy.js";
/** Where a path really lands: the write check's resolution, shared with the policy's path rules. */
export { realTargets } from "./roots.js";
export { runCommand, type RunOptions, type RunResult } from "./run.js";
/** For handlers that run a helper of the host's (ripgrep): found on `PATH`, cached per value. */
export { cachedLookup } from "../process/index.js";
export { checkWriteOrEscalate, sandboxStopped, type SandboxEscalation } from "./escalate.js";
export { createDockerEnvironment, DockerEnvironment } from "./docker.js";
export type { DockerEnvironmentOptions, DockerVolumeOptions } from "./dockerOptions.js";
export type { DockerEngineOptions } from "./dockerEngine.js";
export { DockerPool, type DockerPoolHostCount, type DockerPoolOptions } from "./dockerPool.js";
export { localFileOps } from "./helper/ops.js";
