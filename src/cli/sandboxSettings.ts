import type { SandboxMode, SandboxPolicy } from "../protocol/index.js";

export const SANDBOX_MODES = [
  "read-only",
  "workspace-write",
  "danger-full-access",
] as const satisfies readonly SandboxMode[];

/** What the config file says about the sandbox; the command picks the mode when it says none. */
export type SandboxSettings = Partial<SandboxPolicy>;

/** `[docker]`: run the session's commands in a container (DESIGN section 16). */
export interface DockerSettings {
  image?: string;
  /** false (default): no network; true: the engine's default network; a string: that network. */
  network?: boolean | string;
  /** `docker run --user`. */
  user?: string;
  /** The engine, as a DOCKER_HOST value. */
  host?: string;
}
