import type { Stats } from "node:fs";
import { lstat, readlink } from "node:fs/promises";
import path from "node:path";
import type { ExecEnvironment } from "../protocol/index.js";

/** What a command needs to run when only `readableRoots` are visible (merged-/usr links kept as links). */
const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"];

async function lstatOrUndefined(p: string): Promise<Stats | undefined> {
  try {
    return await lstat(p);
  } catch {
    return undefined;
  }
}

/**
 * bubblewrap's arguments for one command (before `--` and the argv), as Codex builds them: the
 * root file system read-only (or, with `readableRoots`, only the system directories and those
 * roots), each writable root bound writable with its `.git` kept read-only, fresh /dev and
 * /proc, no capabilities (run as root too), its own PID namespace and session, killed with
 * its parent, and no network unless allowed.
 */
export async function bwrapArgs(
  sandbox: ExecEnvironment["sandbox"],
  writable: readonly string[],
  cwd: string,
  /** More mounts, after the roots' (the network allowlist's socket). */
  mounts: readonly string[] = [],
): Promise<string[]> {
  const args: string[] = [];
  if (sandbox.readableRoots === undefined) {
    args.push("--ro-bind", "/", "/");
  } else {
    args.push("--tmpfs", "/");
    for (const dir of SYSTEM_DIRS) {
      const st = await lstatOrUndefined(dir);
      if (st?.isSymbolicLink()) args.push("--symlink", await readlink(dir), dir);
      else if (st?.isDirectory()) args.push("--ro-bind", dir, dir);
    }
    for (const root of sandbox.readableRoots) args.push("--ro-bind", root, root);
  }
  args.push("--dev", "/dev", "--proc", "/proc");
  for (const root of writable) args.push("--bind", root, root);
  for (const root of writable) {
    const git = path.join(root, ".git");
    if (await lstatOrUndefined(git)) args.push("--ro-bind", git, git);
  }
  args.push(...mounts);
  // The tmpfs root would take writes outside every root (lost on exit, yet reported as done).
  if (sandbox.readableRoots !== undefined) args.push("--remount-ro", "/");
  // Run as root, bubblewrap keeps every capability unless told: CAP_SYS_ADMIN remounts / read-write.
  // (Others get none anyway, and a setuid bubblewrap refuses --cap-drop from them.)
  if (process.getuid?.() === 0) args.push("--cap-drop", "ALL");
  args.push("--unshare-pid", "--die-with-parent", "--new-session");
  if (!sandbox.networkAccess) args.push("--unshare-net");
  args.push("--chdir", cwd);
  return args;
}
