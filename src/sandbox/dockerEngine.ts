import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Which Docker Engine, and how the `docker` CLI reaches it (DESIGN section 16, "Remote
 * engines"): an address or a context name, and TLS material, handed to the CLI through the
 * variables it reads itself (`DOCKER_HOST`, `DOCKER_CONTEXT`, `DOCKER_TLS_VERIFY`,
 * `DOCKER_CERT_PATH`), so whatever the CLI supports (ssh, contexts, TLS) works as it does there.
 */
export interface DockerEngineOptions {
  /**
   * `unix:///path`, `tcp://host:port` or `ssh://user@host`, or the name of a Docker context
   * (`docker context create`). Default: the CLI's own (`DOCKER_HOST`, `DOCKER_CONTEXT`, the
   * current context).
   */
  host?: string;
  /** `DOCKER_TLS_VERIFY`: verify the engine's certificate and present ours. Default: the host's variable. */
  tlsVerify?: boolean;
  /** `DOCKER_CERT_PATH`: the directory of `ca.pem`, `cert.pem`, `key.pem`. Default: the host's variable, else `~/.docker`. */
  certPath?: string;
}

const ENGINE_KEYS = ["host", "tlsVerify", "certPath"];
const SCHEMES = ["unix:", "tcp:", "ssh:"];
/** Docker's own rule for a context name. */
const CONTEXT_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.+-]*$/;
const TLS_FILES = ["ca.pem", "cert.pem", "key.pem"];

/** Throws a TypeError naming the first engine option that is not what the CLI accepts. */
export function validateEngineOptions(value: unknown, where = "docker"): DockerEngineOptions {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new TypeError(`${where} must be an object`);
  const o = value as Record<string, unknown>;
  for (const key of Object.keys(o))
    if (!ENGINE_KEYS.includes(key)) throw new TypeError(`${where}.${key} is not a known option`);
  const host = o["host"];
  if (host !== undefined) {
    if (typeof host !== "string" || host === "") throw new TypeError(`${where}.host must be a non-empty string`);
    // A line break would split the watchdog's one-line `docker rm` (and means nothing to the CLI).
    if (/[\s\p{Cc}]/u.test(host)) throw new TypeError(`${where}.host must not contain spaces or control characters`);
    if (host.includes("://")) {
      let url: URL;
      try {
        url = new URL(host);
      } catch {
        throw new TypeError(`${where}.host is not an address: ${host}`);
      }
      if (!SCHEMES.includes(url.protocol))
        throw new TypeError(`${where}.host must be unix://, tcp:// or ssh://, got ${url.protocol}//`);
    } else if (!CONTEXT_NAME.test(host)) {
      throw new TypeError(`${where}.host is neither an address (scheme://...) nor a context name: ${host}`);
    }
  }
  if (o["tlsVerify"] !== undefined && typeof o["tlsVerify"] !== "boolean")
    throw new TypeError(`${where}.tlsVerify must be a boolean`);
  const certPath = o["certPath"];
  if (certPath !== undefined && (typeof certPath !== "string" || certPath === "" || /[\n\r]/.test(certPath)))
    throw new TypeError(`${where}.certPath must be a directory path`);
  return o;
}

/**
 * The CLI's variables for `engine` over the host's own `DOCKER_*` ones. A context name clears
 * `DOCKER_HOST` (which would win over it). With TLS verification on, the certificate directory
 * must hold the three files the CLI loads: an Error names the one missing now, rather than a TLS
 * failure at the first command.
 */
export function engineVariables(
  engine: DockerEngineOptions,
  hostEnv: Readonly<Record<string, string>>,
): Record<string, string> {
  const env = { ...hostEnv };
  if (engine.host !== undefined) {
    if (engine.host.includes("://")) {
      env["DOCKER_HOST"] = engine.host;
      delete env["DOCKER_CONTEXT"];
    } else {
      env["DOCKER_CONTEXT"] = engine.host;
      delete env["DOCKER_HOST"];
    }
  }
  // The CLI treats any non-empty DOCKER_TLS_VERIFY as on.
  if (engine.tlsVerify === true) env["DOCKER_TLS_VERIFY"] = "1";
  if (engine.tlsVerify === false) delete env["DOCKER_TLS_VERIFY"];
  if (engine.certPath !== undefined) env["DOCKER_CERT_PATH"] = path.resolve(engine.certPath);
  if (env["DOCKER_TLS_VERIFY"] !== undefined && env["DOCKER_TLS_VERIFY"] !== "") {
    const dir = env["DOCKER_CERT_PATH"] || path.join(env["HOME"] ?? os.homedir(), ".docker");
    const missing = TLS_FILES.find((f) => !existsSync(path.join(dir, f)));
    if (missing !== undefined)
      throw new Error(`TLS verification is on but ${path.join(dir, missing)} is missing (DOCKER_CERT_PATH)`);
  }
  return env;
}
