import { stat } from "node:fs/promises";
import path from "node:path";
import type { EnvironmentPolicy, ExecEnvironment, FileOps, SandboxMode, SandboxPolicy } from "../protocol/index.js";
import type { TurnContext } from "../turn/index.js";
import { environmentFilter, validateEnvironmentPolicy } from "./envPolicy.js";
import { validateDomainPatterns } from "./domains.js";
import { localFileOps } from "./helper/ops.js";
import { LocalEnvironment } from "./local.js";
import { NetworkAllowlist } from "./netAllowlist.js";
import { realRoots } from "./roots.js";

const MODES: readonly SandboxMode[] = ["read-only", "workspace-write", "danger-full-access"];

export interface ExecEnvironmentOptions {
  /** The workspace: `workspace-write` may write it; relative paths resolve against it. */
  cwd: string;
  /** Default `{ mode: "danger-full-access" }`: the library runs commands unconfined unless told otherwise. */
  sandbox?: SandboxPolicy;
  /** Default: inherit everything but secrets (DESIGN section 12, the environment policy). */
  env?: EnvironmentPolicy;
  /**
   * Where the network allowlist's proxy connects a host name it allows (an address, or another
   * name). Default: the system's resolver. For tests, and embedders with their own resolution.
   */
  resolveHost?: (host: string) => Promise<string> | string;
  /**
   * Default true: where bubblewrap runs, an unsandboxed command (`danger-full-access`, an
   * approved escalation, a hook) gets its own PID namespace, so nothing it starts outlives it.
   * False runs it directly: set-uid programs (`sudo`) work and its pids are the host's, but a
   * child that leaves its process group (`setsid`, `setpgid`) outlives the call.
   */
  pidNamespace?: boolean;
}

function stringList(value: unknown, where: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string" && v !== ""))
    throw new TypeError(`${where} must be a list of non-empty paths`);
  return value as string[];
}

/** Throws a TypeError naming the first field that is not what the policy expects. */
export function validateSandboxPolicy(policy: unknown, where = "sandbox"): SandboxPolicy {
  if (typeof policy !== "object" || policy === null || Array.isArray(policy))
    throw new TypeError(`${where} must be an object`);
  const p = policy as Record<string, unknown>;
  for (const key of Object.keys(p)) {
    if (
      !["mode", "writableRoots", "networkAccess", "readableRoots", "allowedDomains", "allowUnixSockets"].includes(key)
    )
      throw new TypeError(`${where}.${key} is not a known option`);
  }
  if (!MODES.includes(p["mode"] as SandboxMode))
    throw new TypeError(`${where}.mode must be one of ${MODES.join(", ")}, got ${JSON.stringify(p["mode"])}`);
  stringList(p["writableRoots"], `${where}.writableRoots`);
  stringList(p["readableRoots"], `${where}.readableRoots`);
  stringList(p["allowUnixSockets"], `${where}.allowUnixSockets`);
  if (p["networkAccess"] !== undefined && typeof p["networkAccess"] !== "boolean")
    throw new TypeError(`${where}.networkAccess must be a boolean`);
  if (p["allowedDomains"] === undefined) return p as unknown as SandboxPolicy;
  if (p["networkAccess"] === true)
    throw new TypeError(`${where}: networkAccess true allows every domain; give it or allowedDomains, not both`);
  // Lower-cased, in a list of the environment's own (a person's allows are added to it).
  const allowedDomains = validateDomainPatterns(p["allowedDomains"], `${where}.allowedDomains`);
  return { ...(p as unknown as SandboxPolicy), allowedDomains };
}

/**
 * The local environment (DESIGN section 12): bubblewrap under `read-only` and
 * `workspace-write`, unconfined under `danger-full-access`. Resolves even when bubblewrap is
 * missing: each command then answers `sandbox unavailable: ...` (never a silent fallback).
 * Roots are resolved to real paths now; one that does not exist is skipped.
 */
export async function createExecEnvironment(opts: ExecEnvironmentOptions): Promise<ExecEnvironment> {
  if (typeof opts.cwd !== "string" || opts.cwd === "") throw new TypeError("cwd must be a non-empty path");
  const cwd = path.resolve(opts.cwd);
  const st = await stat(cwd).catch(() => undefined);
  if (!st?.isDirectory()) throw new TypeError(`cwd is not a directory: ${cwd}`);
  const policy = validateSandboxPolicy(opts.sandbox ?? { mode: "danger-full-access" });
  const filter = environmentFilter(validateEnvironmentPolicy(opts.env));
  const resolve = (roots: readonly string[] | undefined): string[] => (roots ?? []).map((r) => path.resolve(cwd, r));
  const writable = policy.mode === "workspace-write" ? await realRoots([cwd, ...resolve(policy.writableRoots)]) : [];
  const readable =
    policy.readableRoots === undefined
      ? undefined
      : await realRoots([cwd, ...writable, ...resolve(policy.readableRoots)]);
  // Unconfined commands reach everything: an allowlist there would only look enforced.
  const domains = policy.mode === "danger-full-access" ? undefined : policy.allowedDomains;
  const sandbox: ExecEnvironment["sandbox"] = {
    mode: policy.mode,
    writableRoots: writable,
    networkAccess: policy.networkAccess ?? false,
    ...(readable !== undefined && { readableRoots: readable }),
    ...(domains !== undefined && { allowedDomains: domains }),
    ...(policy.allowUnixSockets !== undefined && { allowUnixSockets: resolve(policy.allowUnixSockets) }),
  };
  if (opts.pidNamespace !== undefined && typeof opts.pidNamespace !== "boolean")
    throw new TypeError("pidNamespace must be a boolean");
  const network = domains === undefined ? undefined : new NetworkAllowlist(domains, writable, opts.resolveHost);
  return new LocalEnvironment(cwd, sandbox, writable, readable, filter, opts.pidNamespace ?? true, network);
}

let fallback: ExecEnvironment | undefined;

/**
 * The turn's environment; without one, the library's default: local, full access, the default
 * environment policy (secrets hidden).
 */
export function environmentOf(turn: TurnContext): ExecEnvironment {
  if (turn.environment) return turn.environment;
  fallback ??= new LocalEnvironment(
    process.cwd(),
    { mode: "danger-full-access", writableRoots: [], networkAccess: true },
    [],
    undefined,
    environmentFilter(),
  );
  return fallback;
}

/**
 * Where the turn's file tools read and write: its environment's file operations (inside the
 * sandbox under bubblewrap), or the host process's own for an environment that has none.
 */
export function filesOf(turn: TurnContext): FileOps {
  return environmentOf(turn).files ?? localFileOps;
}
