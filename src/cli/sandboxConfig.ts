import path from "node:path";
import type { EnvironmentPolicy, SandboxMode, SandboxPolicy } from "../protocol/index.js";
import { validateDomainPatterns } from "../sandbox/index.js";
import { errorMessage } from "../util/index.js";
import { ConfigError, type Section } from "./configSection.js";

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

/** Top-level keys this module reads. */
export const SANDBOX_CONFIG_KEYS = [
  "sandbox",
  "sandbox_mode",
  "sandbox_workspace_write",
  "shell_environment_policy",
  "docker",
] as const;

const SANDBOX_KEYS = ["mode", "writable_roots", "network_access", "readable_roots", "allow_unix_sockets"] as const;
const WORKSPACE_WRITE_KEYS = ["writable_roots", "network_access"] as const;
const ENV_POLICY_KEYS = ["inherit", "ignore_default_excludes", "exclude", "include_only", "set"] as const;

/**
 * `[sandbox] network_access`: true, false, or the allowlist (DESIGN section 12), each entry
 * checked (an error names the entry and what is wrong with it).
 */
function networkSetting(s: Section | undefined): boolean | string[] | undefined {
  const value = s?.raw("network_access");
  if (s === undefined || value === undefined || typeof value === "boolean") return value as boolean | undefined;
  if (!Array.isArray(value)) s.fail("network_access", "true, false or a list of domains");
  try {
    return validateDomainPatterns(value, s.dotted("network_access"));
  } catch (err) {
    throw new ConfigError(`${s.file}: ${errorMessage(err)}`);
  }
}

/** The value both places give, or the one that is given; an error naming both when they differ. */
function agree<T>(file: string, a: { key: string; value: T | undefined }, b: { key: string; value: T | undefined }) {
  if (a.value !== undefined && b.value !== undefined && JSON.stringify(a.value) !== JSON.stringify(b.value)) {
    throw new ConfigError(`${file}: ${a.key} and ${b.key} disagree; set one of them`);
  }
  return a.value ?? b.value;
}

/**
 * `[sandbox]` (mode, writable_roots, network_access, readable_roots, allow_unix_sockets) and Codex's names for the
 * same settings: top-level `sandbox_mode` and `[sandbox_workspace_write]`. A setting given in
 * both places must agree. Relative roots are resolved against the config file's directory
 * (where the user wrote them), not the turn's cwd. Undefined when the file says nothing.
 */
export function parseSandboxSettings(root: Section): SandboxSettings | undefined {
  const file = root.file;
  const own = root.subTable("sandbox");
  own?.rejectUnknown(SANDBOX_KEYS);
  const codex = root.subTable("sandbox_workspace_write");
  // Codex's defaults (`false`) change nothing here; `true` asks for what we cannot do, so it stays an error.
  codex?.rejectUnknown(
    WORKSPACE_WRITE_KEYS,
    ["exclude_tmpdir_env_var", "exclude_slash_tmp"].filter((k) => codex.raw(k) === false),
  );
  const base = path.dirname(path.resolve(file));
  const roots = (s: Section | undefined, key: string): string[] | undefined =>
    s?.stringArray(key, { nonEmpty: true })?.map((r) => path.resolve(base, r));

  const mode = agree(
    file,
    { key: "sandbox.mode", value: own?.oneOf("mode", SANDBOX_MODES) },
    { key: "sandbox_mode", value: root.oneOf("sandbox_mode", SANDBOX_MODES) },
  );
  const writableRoots = agree(
    file,
    { key: "sandbox.writable_roots", value: roots(own, "writable_roots") },
    { key: "sandbox_workspace_write.writable_roots", value: roots(codex, "writable_roots") },
  );
  const networkAccess = agree(
    file,
    { key: "sandbox.network_access", value: networkSetting(own) },
    { key: "sandbox_workspace_write.network_access", value: codex?.boolean("network_access") },
  );
  const readableRoots = roots(own, "readable_roots");
  const allowUnixSockets = roots(own, "allow_unix_sockets");

  if (own === undefined && codex === undefined && mode === undefined) return undefined;
  const settings: SandboxSettings = {};
  if (mode !== undefined) settings.mode = mode;
  if (writableRoots !== undefined) settings.writableRoots = writableRoots;
  if (Array.isArray(networkAccess)) settings.allowedDomains = networkAccess;
  else if (networkAccess !== undefined) settings.networkAccess = networkAccess;
  if (readableRoots !== undefined) settings.readableRoots = readableRoots;
  if (allowUnixSockets !== undefined) settings.allowUnixSockets = allowUnixSockets;
  return settings;
}

const DOCKER_KEYS = ["image", "network", "user", "host", "workspace", "tls_verify", "cert_path"] as const;

/** `[docker]` (image, network, user, host, workspace, tls_verify, cert_path); undefined when the file has none. */
export function parseDockerSettings(root: Section): DockerSettings | undefined {
  const s = root.subTable("docker");
  if (s === undefined) return undefined;
  s.rejectUnknown(DOCKER_KEYS);
  const settings: DockerSettings = {};
  const image = s.string("image");
  if (image !== undefined) settings.image = image;
  const network = s.booleanOrString("network");
  if (network !== undefined) settings.network = network;
  for (const key of ["user", "host"] as const) {
    const value = s.string(key);
    if (value !== undefined) settings[key] = value;
  }
  const workspace = s.oneOf("workspace", ["bind", "volume"] as const);
  if (workspace !== undefined) settings.workspace = workspace;
  const tlsVerify = s.boolean("tls_verify");
  if (tlsVerify !== undefined) settings.tlsVerify = tlsVerify;
  const certPath = s.string("cert_path");
  if (certPath !== undefined) settings.certPath = certPath;
  return settings;
}

/** `[shell_environment_policy]` with Codex's keys, as the library's `EnvironmentPolicy`. */
export function parseShellEnvironmentPolicy(s: Section): EnvironmentPolicy {
  s.rejectUnknown(ENV_POLICY_KEYS);
  const policy: EnvironmentPolicy = {};
  const inherit = s.oneOf("inherit", ["all", "core", "none"] as const);
  if (inherit !== undefined) policy.inherit = inherit;
  const ignore = s.boolean("ignore_default_excludes");
  if (ignore !== undefined) policy.ignoreDefaultExcludes = ignore;
  const exclude = s.stringArray("exclude", { nonEmpty: true });
  if (exclude !== undefined) policy.exclude = exclude;
  const includeOnly = s.stringArray("include_only", { nonEmpty: true });
  if (includeOnly !== undefined) policy.includeOnly = includeOnly;
  const set = s.stringTable("set");
  if (set !== undefined) {
    for (const [name, value] of Object.entries(set)) {
      // What execve could not pass on: the command would otherwise fail to start, far from the config.
      if (name === "" || name.includes("=") || name.includes("\0")) {
        throw new ConfigError(`${s.file}: ${s.dotted("set")}: invalid variable name ${JSON.stringify(name)}`);
      }
      if (value.includes("\0")) {
        throw new ConfigError(`${s.file}: ${s.dotted(`set.${name}`)}: a value must not contain NUL`);
      }
    }
    policy.set = set;
  }
  return policy;
}
