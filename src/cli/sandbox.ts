import { findExecutable } from "../process/index.js";
import type { EnvironmentPolicy, ExecEnvironment, SandboxMode, SandboxPolicy } from "../protocol/index.js";
import { createDockerEnvironment, createExecEnvironment, DockerEnvironment } from "../sandbox/index.js";
import { errorMessage } from "../util/index.js";
import { ConfigError } from "./configError.js";
import { SANDBOX_MODES, type DockerSettings, type SandboxSettings } from "./sandboxSettings.js";

/** The commands that run tools sandbox them unless told otherwise (the library's default is full access). */
const DEFAULT_SANDBOX_MODE: SandboxMode = "workspace-write";

/** `--sandbox MODE`, `--network` and `--docker-image IMAGE`. */
export interface SandboxFlags {
  /** Over the config's mode. */
  sandbox?: SandboxMode | undefined;
  /** Network for sandboxed commands, whatever the config says. */
  network?: boolean | undefined;
  /** Run commands in a container of this image (over `[docker] image`). */
  dockerImage?: string | undefined;
}

/** `--sandbox`'s value, checked before anything starts. */
export function parseSandboxFlag(value: string | undefined): SandboxMode | undefined {
  if (value === undefined) return undefined;
  if (!(SANDBOX_MODES as readonly string[]).includes(value)) {
    throw new ConfigError(`--sandbox: expected one of ${SANDBOX_MODES.join(", ")}, got ${JSON.stringify(value)}`);
  }
  return value as SandboxMode;
}

/** The config's sandbox settings with the flags over them; `workspace-write` when neither names a mode. */
export function sandboxPolicy(settings: SandboxSettings | undefined, flags: SandboxFlags): SandboxPolicy {
  const policy: SandboxPolicy = { ...settings, mode: flags.sandbox ?? settings?.mode ?? DEFAULT_SANDBOX_MODE };
  if (flags.network) {
    // Every domain: the config's allowlist gives way.
    policy.networkAccess = true;
    delete policy.allowedDomains;
  }
  return policy;
}

/** Is bubblewrap where the sandbox looks for it (this process's `PATH`)? */
export async function bwrapInstalled(): Promise<boolean> {
  return (await findExecutable("bwrap", process.env["PATH"])) !== null;
}

/**
 * The session's environment. The policy's shapes were checked with the config; what is left
 * (a cwd that vanished) is still the user's to fix, so it is a ConfigError.
 */
export async function openEnvironment(
  cwd: string,
  sandbox: SandboxPolicy,
  env: EnvironmentPolicy | undefined,
): Promise<ExecEnvironment> {
  try {
    return await createExecEnvironment({ cwd, sandbox, ...(env !== undefined && { env }) });
  } catch (err) {
    throw new ConfigError(`sandbox: ${errorMessage(err)}`);
  }
}

/**
 * The session's environment: a container when `--docker-image` or `[docker] image` names one
 * (DESIGN section 16; `--sandbox` does not apply there: the container is the boundary), else the
 * local one with the config's sandbox and the flags over it. Problems are the user's to fix.
 */
export async function sessionEnvironment(
  cwd: string,
  config: { sandbox?: SandboxSettings; docker?: DockerSettings; shellEnvironmentPolicy?: EnvironmentPolicy },
  flags: SandboxFlags,
): Promise<ExecEnvironment> {
  const docker = config.docker;
  const image = flags.dockerImage ?? docker?.image;
  if (image === undefined)
    return openEnvironment(cwd, sandboxPolicy(config.sandbox, flags), config.shellEnvironmentPolicy);
  if (flags.sandbox !== undefined) {
    throw new ConfigError("--sandbox does not apply to a Docker environment (the container is the boundary)");
  }
  const configured = docker?.network ?? false;
  try {
    return await createDockerEnvironment({
      image,
      // `--network` turns it on; a network the config names stays the one used.
      network: flags.network === true && configured === false ? true : configured,
      ...(config.shellEnvironmentPolicy !== undefined && { env: config.shellEnvironmentPolicy }),
      ...(docker?.user !== undefined && { user: docker.user }),
      docker: {
        ...(docker?.host !== undefined && { host: docker.host }),
        ...(docker?.tlsVerify !== undefined && { tlsVerify: docker.tlsVerify }),
        ...(docker?.certPath !== undefined && { certPath: docker.certPath }),
      },
      // Copied in now, copied back when the session ends.
      ...(docker?.workspace === "volume" ? { volume: { seed: cwd, pullOnClose: true } } : { workspace: cwd }),
    });
  } catch (err) {
    throw new ConfigError(`docker: ${errorMessage(err)}`);
  }
}

/**
 * One line for stderr when the environment sandboxes commands but bubblewrap is missing: the
 * commands are refused (never run unconfined), and the user should know before the first one.
 */
export async function sandboxWarning(env: ExecEnvironment): Promise<string | undefined> {
  if (env.kind !== "bubblewrap" || (await bwrapInstalled())) return undefined;
  return (
    `warning: sandbox mode ${env.sandbox.mode} needs bubblewrap (bwrap), which is not on PATH; ` +
    `every command will be refused (install bubblewrap or use --sandbox danger-full-access)`
  );
}

/** How the demo says which mode it ran in. */
export function describeSandbox(
  mode: SandboxMode,
  { bwrap, chosen }: { bwrap: boolean; chosen: "auto" | "flag" },
): string {
  if (mode !== "danger-full-access") {
    return bwrap
      ? `sandbox: ${mode} (bubblewrap)`
      : `sandbox: ${mode} (bubblewrap not found: commands will be refused)`;
  }
  if (chosen === "auto")
    return "sandbox: danger-full-access (bubblewrap not found; install it to run the demo sandboxed)";
  return "sandbox: danger-full-access";
}

/** Where the session's turns run: the container's workspace for a Docker volume, else `cwd`. */
export function turnCwd(environment: ExecEnvironment, cwd: string): string {
  return environment instanceof DockerEnvironment && environment.hasVolume ? environment.workdir : cwd;
}
