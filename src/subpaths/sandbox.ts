/**
 * `toolcall-runtime/sandbox`: running commands and touching files through an environment
 * outside a tool call (DESIGN sections 12 and 16). `createExecEnvironment`,
 * `createDockerEnvironment` and the `ExecEnvironment` seam are in the package root.
 */
export {
  DockerEnvironment,
  environmentOf,
  filesOf,
  localFileOps,
  runCommand,
  type RunOptions,
  type RunResult,
} from "../sandbox/index.js";
export { SandboxDenial, type EscalationRequest } from "../protocol/index.js";
