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
  /** The engine: a DOCKER_HOST value (`tcp://`, `ssh://`, `unix://`) or a Docker context name. */
  host?: string;
  /** `bind` (default): the working directory bound into the container; `volume`: copied into the container, copied back at the end. */
  workspace?: "bind" | "volume";
  /** DOCKER_TLS_VERIFY for the engine. */
  tlsVerify?: boolean;
  /** DOCKER_CERT_PATH: the directory of ca.pem, cert.pem, key.pem. */
  certPath?: string;
}
