import { lstatSync, readFileSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { reusedFor, toolcallHome } from "../util/index.js";
import { isWithin } from "./roots.js";

/*
 * What a sandbox never sees (DESIGN section 12): credentials, even without `readableRoots`
 * (commands get an empty directory or /dev/null there, the readers refuse them), and every host
 * Unix socket (a socket is a door past every mount rule: Docker's is root on the host).
 */

/** Credentials of the user and the machine, and toolcall's own token store. */
function secretPaths(home = homedir()): string[] {
  return [
    ...[".ssh", ".aws", ".gnupg", ".config/gcloud", ".kube", ".docker", ".netrc"].map((p) => path.join(home, p)),
    "/etc/shadow",
    "/etc/gshadow",
    path.join(toolcallHome(), "mcp-oauth"),
  ];
}

/** An existing path's real path and whether it is a directory, or undefined. */
export function existing(p: string): { real: string; dir: boolean } | undefined {
  // Most of these do not exist: asked without an exception (its stack cost more than the lookup).
  const st = statSync(p, { throwIfNoEntry: false });
  if (st === undefined) return undefined;
  try {
    return { real: realpathSync.native(p), dir: st.isDirectory() };
  } catch {
    return undefined;
  }
}

/** What the host's file system says is reused this long (a secret or socket made since is seen a moment late). */
const REUSE_MS = 2_000;

/** The secret paths that exist, real, each with whether it is a directory. */
export function existingSecrets(): Array<{ real: string; dir: boolean }> {
  return recentSecrets(`${homedir()}\0${toolcallHome()}`);
}
const recentSecrets = reusedFor(REUSE_MS, () => secretPaths().flatMap((p) => existing(p) ?? []));

/** Is the real path `real` a secret's or inside one? */
export function isSecret(real: string): boolean {
  return existingSecrets().some((s) => isWithin(s.real, real));
}

/**
 * The real paths of the host's bound Unix sockets that exist here (`/proc/net/unix`; abstract
 * ones have no path). `fresh`: read now, for a sandbox that may create Unix sockets, where
 * hiding them is the boundary (elsewhere the seccomp filter is, and a list REUSE_MS old will do).
 */
export function hostUnixSockets({ fresh }: { fresh: boolean }): string[] {
  if (fresh) return listUnixSockets();
  // One gone since would fail bubblewrap's bind over it: each is looked at again now.
  return recentSockets("").filter((p) => lstatSync(p, { throwIfNoEntry: false })?.isSocket() === true);
}
const recentSockets = reusedFor(REUSE_MS, listUnixSockets);

function listUnixSockets(): string[] {
  let text: string;
  try {
    text = readFileSync("/proc/net/unix", "utf8");
  } catch {
    return [];
  }
  const out = new Set<string>();
  for (const line of text.split("\n").slice(1)) {
    // `Num RefCount Protocol Flags Type St Inode Path`: the path (it may hold spaces) is what follows the 7th field.
    const m = /^\s*\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+(\/.*)$/.exec(line);
    const real = m?.[1] === undefined ? undefined : realSocket(m[1]);
    if (real !== undefined) out.add(real);
  }
  return [...out];
}

/** The real path of the socket `p`, or undefined when it is gone or no socket. */
export function realSocket(p: string): string | undefined {
  const found = existing(p);
  return found !== undefined && lstatSync(found.real, { throwIfNoEntry: false })?.isSocket() ? found.real : undefined;
}
