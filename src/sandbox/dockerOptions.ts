import path from "node:path";
import type { EnvironmentPolicy } from "../protocol/index.js";
import { validateEngineOptions, type DockerEngineOptions } from "./dockerEngine.js";

/** A workspace that lives in the container (DESIGN section 16, "Remote engines"). */
export interface DockerVolumeOptions {
  /** Where, inside the container: an anonymous volume mounted there. Default `/workspace`. */
  path?: string;
  /** A host directory whose contents are copied in (archive API) when the container starts. */
  seed?: string;
  /** `close()` first copies the whole workspace back to `seed` (`pull()`). Default false. */
  pullOnClose?: boolean;
}

export interface DockerEnvironmentOptions {
  /** The image every session's container runs (the user's; never built here). */
  image: string;
  /**
   * A host directory, bound into the container at the same path: commands and file tools share
   * it (the engine must run on this machine). Give this or `volume`.
   */
  workspace?: string;
  /**
   * The workspace in a volume of the container instead, nothing of the host mounted (any
   * engine, remote ones included): file tools run in the container (its `node` runs the
   * resident helper), `seed` copies a host directory in, `pull()` copies back.
   */
  volume?: DockerVolumeOptions;
  /**
   * Default false: `--network none`. True: the engine's default network; a string: that
   * network (`host`, a user-defined one).
   */
  network?: boolean | string;
  /**
   * Which of the host's variables pass into the container, over the image's own environment.
   * Default `{ inherit: "none" }`: the image's environment alone (the host's PATH or HOME mean
   * nothing inside).
   */
  env?: EnvironmentPolicy;
  /** `docker run --user`: e.g. "1000:1000", so files in the workspace belong to the host's user. */
  user?: string;
  /** The engine (an address or a context name) and its TLS material; default the CLI's own. */
  docker?: DockerEngineOptions;
}

const OPTION_KEYS = ["image", "workspace", "volume", "network", "env", "user", "docker"];
const VOLUME_KEYS = ["path", "seed", "pullOnClose"];
export const DEFAULT_VOLUME_PATH = "/workspace";

function validateVolume(value: unknown): DockerVolumeOptions {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new TypeError("volume must be an object");
  const v = value as Record<string, unknown>;
  for (const key of Object.keys(v))
    if (!VOLUME_KEYS.includes(key)) throw new TypeError(`volume.${key} is not a known option`);
  const p = v["path"];
  // `--mount dst=PATH` splits on ",".
  if (p !== undefined && (typeof p !== "string" || !path.posix.isAbsolute(p) || /[,\s\p{Cc}]/u.test(p)))
    throw new TypeError("volume.path must be an absolute path without commas or spaces");
  if (p !== undefined && path.posix.normalize(p) === "/") throw new TypeError("volume.path must not be /");
  if (v["seed"] !== undefined && (typeof v["seed"] !== "string" || v["seed"] === ""))
    throw new TypeError("volume.seed must be a host directory");
  if (v["pullOnClose"] !== undefined && typeof v["pullOnClose"] !== "boolean")
    throw new TypeError("volume.pullOnClose must be a boolean");
  if (v["pullOnClose"] === true && v["seed"] === undefined)
    throw new TypeError("volume.pullOnClose needs volume.seed: where the workspace is copied back");
  return v;
}

/** Throws a TypeError naming the first option that is not what the environment expects. */
export function validate(opts: unknown): DockerEnvironmentOptions {
  if (typeof opts !== "object" || opts === null || Array.isArray(opts))
    throw new TypeError("options must be an object");
  const o = opts as Record<string, unknown>;
  for (const key of Object.keys(o)) if (!OPTION_KEYS.includes(key)) throw new TypeError(`${key} is not a known option`);
  if (typeof o["image"] !== "string" || o["image"] === "" || o["image"].startsWith("-"))
    throw new TypeError("image must be an image name");
  if ((o["workspace"] === undefined) === (o["volume"] === undefined))
    throw new TypeError(
      "give workspace (a host directory, bound) or volume (the workspace in the container), not both",
    );
  if (o["volume"] !== undefined) validateVolume(o["volume"]);
  else if (typeof o["workspace"] !== "string" || o["workspace"] === "")
    throw new TypeError("workspace must be a directory");
  // `-v SOURCE:TARGET` splits on ":".
  else if (o["workspace"].includes(":")) throw new TypeError(`workspace must not contain ":": ${o["workspace"]}`);
  const network = o["network"];
  if (network !== undefined && typeof network !== "boolean" && (typeof network !== "string" || network === ""))
    throw new TypeError("network must be a boolean or a network name");
  if (o["user"] !== undefined && (typeof o["user"] !== "string" || o["user"] === ""))
    throw new TypeError("user must be a non-empty string");
  if (o["docker"] !== undefined) validateEngineOptions(o["docker"]);
  return o as unknown as DockerEnvironmentOptions;
}
