import { existsSync, lstatSync, readlinkSync, realpathSync, type Stats } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ExecEnvironment } from "../protocol/index.js";
import { existing, existingSecrets, hostUnixSockets, realSocket } from "./hiddenPaths.js";
import { protectedPaths } from "./protectedPaths.js";
import { isWithin } from "./roots.js";
import { seccompProgram } from "./seccomp.js";

/** What a command needs to run when only `readableRoots` are visible (merged-/usr links kept as links). */
const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"];
/** Where host sockets and runtime state live: an empty tmpfs inside. */
const RUNTIME_DIRS = ["/run", "/var/run"];

/** The descriptor bubblewrap reads the seccomp program from: the spawn's fourth stdio entry. */
export const SECCOMP_FD = 3;

function lstatOrUndefined(p: string): Stats | undefined {
  return lstatSync(p, { throwIfNoEntry: false });
}

const realOrUndefined = (p: string): string | undefined => existing(p)?.real;

type Sandbox = ExecEnvironment["sandbox"];

/**
 * What our own programs inside the sandbox need (the resident helper, the network bridge: this
 * package's files, and node): kept visible, read-only, where the sandbox's private /tmp would
 * hide them (a project checked out under /tmp runs from there).
 */
const OWN_DIRS: readonly string[] = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, "package.json")) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  const real = (p: string): string => {
    try {
      return realpathSync(p);
    } catch {
      return p;
    }
  };
  return [real(dir), path.dirname(real(process.execPath))];
})();

/** May the sandbox create Unix sockets (to reach those it was allowed, or the allowlist's proxy)? */
const unixAllowed = (sandbox: Sandbox): boolean =>
  (sandbox.allowUnixSockets?.length ?? 0) > 0 || sandbox.allowedDomains !== undefined;

/**
 * The seccomp program for this sandbox (DESIGN 12): Unix sockets only when some are allowed,
 * sockets of other families only with network. A domain allowlist needs both: its bridge inside
 * reaches the host's proxy through a Unix socket and serves the command on loopback (the only
 * network there); the host's other sockets stay hidden by the mounts.
 */
export function sandboxSeccomp(sandbox: Sandbox): Buffer {
  return seccompProgram({
    unix: unixAllowed(sandbox) ? "allow" : "deny",
    inet: sandbox.networkAccess || sandbox.allowedDomains !== undefined ? "allow" : "deny",
  });
}

/**
 * bubblewrap's arguments for the whole sandbox (before `--` and the argv; the command's own
 * `--chdir` comes last): the root file system read-only (or, with `readableRoots`, only the
 * system directories and those roots); a private `/tmp` and empty `/run`, `/var/run` (the
 * host's temporary directory is never seen); each writable root bound writable, with every
 * protected path inside kept read-only (protectedPaths.ts); credentials and every other host
 * Unix socket hidden (hiddenPaths.ts) unless named in `allowUnixSockets`; fresh /dev and /proc,
 * no capabilities (run as root too), its own PID namespace and session, killed with its parent,
 * no network unless allowed, and the seccomp filter read from SECCOMP_FD (sandboxSeccomp).
 */
export function bwrapArgs(
  sandbox: Sandbox,
  writable: readonly string[],
  cwd: string,
  /** More mounts, after the roots' and the hiding (the network allowlist's socket). */
  mounts: readonly string[] = [],
): string[] {
  const args: string[] = [];
  const readable = sandbox.readableRoots;
  if (readable === undefined) {
    args.push("--ro-bind", "/", "/");
  } else {
    args.push("--tmpfs", "/");
    for (const dir of SYSTEM_DIRS) {
      const st = lstatOrUndefined(dir);
      if (st?.isSymbolicLink()) args.push("--symlink", readlinkSync(dir), dir);
      else if (st?.isDirectory()) args.push("--ro-bind", dir, dir);
    }
    for (const root of readable) args.push("--ro-bind", root, root);
  }
  args.push("--dev", "/dev", "--proc", "/proc");
  // Roots (and the cwd) under what is hidden next are bound again after it.
  const holdsRoot = (dir: string): boolean =>
    [cwd, ...writable, ...(readable ?? [])].some((root) => isWithin(dir, root) && root !== dir);
  const hostTmp = realOrUndefined(tmpdir());
  const scratch = ["/tmp", ...(hostTmp !== undefined && !isWithin("/tmp", hostTmp) ? [hostTmp] : [])];
  for (const dir of [...scratch, ...RUNTIME_DIRS]) {
    const st = lstatOrUndefined(dir);
    // A link (/var/run -> /run) is hidden through its target; a host temporary directory inside
    // a writable root stays that root's.
    if (st?.isSymbolicLink() || (dir === hostTmp && writable.some((root) => isWithin(root, dir)))) continue;
    if (st === undefined && dir !== "/tmp") continue;
    args.push("--tmpfs", dir);
  }
  // Name resolution through systemd-resolved keeps working: /etc/resolv.conf links into /run.
  const resolv = realOrUndefined("/etc/resolv.conf");
  if (resolv !== undefined && RUNTIME_DIRS.some((dir) => isWithin(dir, resolv))) args.push("--ro-bind", resolv, resolv);
  // The cwd and readable roots hidden by the tmpfs mounts above come back (writable roots next).
  const hiddenDirs = [...scratch, ...RUNTIME_DIRS].map((d) => realOrUndefined(d) ?? d);
  for (const root of new Set([cwd, ...(readable ?? []), ...(readable === undefined ? OWN_DIRS : [])]))
    if (!writable.includes(root) && hiddenDirs.some((dir) => isWithin(dir, root))) args.push("--ro-bind", root, root);
  for (const root of writable) args.push("--bind", root, root);
  for (const p of protectedPaths(writable)) args.push("--ro-bind-try", p, p);
  const allowed = new Set<string>();
  for (const sock of sandbox.allowUnixSockets ?? []) {
    const real = realSocket(sock);
    if (real === undefined) continue;
    allowed.add(real);
    args.push("--bind", real, real);
  }
  // With readableRoots, what lies outside every mount is absent already: hiding it again would
  // only make its mount point, and so show its name (a ~/.ssh under a hidden home).
  const shown = (real: string): boolean =>
    readable === undefined || [...SYSTEM_DIRS, cwd, ...writable, ...readable].some((root) => isWithin(root, real));
  for (const secret of existingSecrets()) {
    if (holdsRoot(secret.real) || !shown(secret.real)) continue;
    if (secret.dir) args.push("--tmpfs", secret.real, "--remount-ro", secret.real);
    else args.push("--ro-bind", "/dev/null", secret.real);
  }
  for (const real of hostUnixSockets({ fresh: unixAllowed(sandbox) })) {
    if (allowed.has(real)) continue;
    if (hiddenDirs.some((dir) => isWithin(dir, real)) && !writable.some((root) => isWithin(root, real))) continue;
    if (!shown(real)) continue;
    args.push("--ro-bind", "/dev/null", real);
  }
  args.push(...mounts);
  // The tmpfs root would take writes outside every root (lost on exit, yet reported as done);
  // so would /tmp under `read-only`, which writes nothing. (Last: the binds above made their
  // mount points there.)
  if (readable !== undefined) args.push("--remount-ro", "/");
  if (sandbox.mode === "read-only") args.push("--remount-ro", "/tmp");
  // Run as root, bubblewrap keeps every capability unless told: CAP_SYS_ADMIN remounts / read-write.
  // (Others get none anyway, and a setuid bubblewrap refuses --cap-drop from them.)
  if (process.getuid?.() === 0) args.push("--cap-drop", "ALL");
  args.push("--unshare-pid", "--die-with-parent", "--new-session");
  if (!sandbox.networkAccess) args.push("--unshare-net");
  args.push("--seccomp", String(SECCOMP_FD));
  args.push("--chdir", cwd);
  return args;
}

/**
 * bubblewrap's arguments for a command without a sandbox (`danger-full-access`, an approved
 * escalation): the whole file system read-write, devices, the network and capabilities as they
 * are, but its own PID namespace (a fresh /proc) and killed with its parent, so a child that
 * leaves its process group (`setsid`, `setpgid`) still dies with the call and with the host.
 */
export function unconfinedBwrapArgs(cwd: string): string[] {
  // `--dev-bind / /`: one recursive bind with devices usable (`--bind` would make /dev nodev).
  // No `--new-session`: the command stays in the host's process group for it, so a timeout's
  // SIGTERM reaches it before the SIGKILL (bubblewrap does not pass signals on).
  return ["--dev-bind", "/", "/", "--proc", "/proc", "--unshare-pid", "--die-with-parent", "--chdir", cwd];
}
