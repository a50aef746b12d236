import { randomBytes } from "node:crypto";
import {
  chmod,
  lstat,
  mkdir,
  readFile,
  readlink,
  realpath,
  rename,
  rmdir,
  stat,
  symlink,
  unlink,
  writeFile,
} from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { Logger } from "pino";
import { PatchApplyError } from "./errors.js";
import { ioErrorText } from "../../util/index.js";

export const errCode = (err: unknown): string | undefined => (err as NodeJS.ErrnoException).code;

/** The final state of one path: new contents, or null to delete it. */
export type FileChanges = ReadonlyMap<string, string | null>;

type Original = { kind: "absent" } | { kind: "file"; data: Buffer; mode: number } | { kind: "link"; to: string };

interface Applied {
  target: string;
  original: Original;
}

/** Directories this commit created: `deepest` up to `top`, removed again on rollback. */
interface CreatedDirs {
  top: string;
  deepest: string;
}

/** Writes go to the file a symlink points at, as `fs::write` does in Codex. */
async function writeTarget(path: string): Promise<string> {
  try {
    return (await lstat(path)).isSymbolicLink() ? await realpath(path) : path;
  } catch {
    return path;
  }
}

async function snapshot(target: string): Promise<Original> {
  try {
    if ((await lstat(target)).isSymbolicLink()) return { kind: "link", to: await readlink(target) };
    const [data, info] = await Promise.all([readFile(target), stat(target)]);
    return { kind: "file", data, mode: info.mode & 0o7777 };
  } catch (err) {
    if (errCode(err) === "ENOENT") return { kind: "absent" };
    throw err;
  }
}

/** Temp file in the target's directory, then rename: readers see the old or the new file. */
async function writeAtomic(target: string, data: string | Buffer, mode: number | undefined): Promise<void> {
  const tmp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString("hex")}.apply_patch.tmp`);
  try {
    await writeFile(tmp, data, { flag: "wx" });
    if (mode !== undefined) await chmod(tmp, mode);
    await rename(tmp, target);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}

async function unlinkIfPresent(path: string): Promise<void> {
  await unlink(path).catch((err: unknown) => {
    if (errCode(err) !== "ENOENT") throw err;
  });
}

async function restore({ target, original }: Applied): Promise<void> {
  if (original.kind === "absent") {
    await unlinkIfPresent(target);
  } else if (original.kind === "link") {
    await unlinkIfPresent(target);
    await symlink(original.to, target);
  } else {
    await writeAtomic(target, original.data, original.mode);
  }
}

async function removeCreatedDirs({ top, deepest }: CreatedDirs): Promise<void> {
  for (let dir = deepest; ; dir = dirname(dir)) {
    try {
      await rmdir(dir); // only empty directories: never anything we did not create
    } catch {
      return;
    }
    if (dir === top || dirname(dir) === dir) return;
  }
}

/**
 * Applies the final state of every path, all or nothing: deletions first (so a deleted file
 * can make way for a directory), then files written through a temp file and a rename (keeping
 * the mode of the file they replace). On the first failure every path already changed is
 * restored from the copy taken before it was touched, and the directories created on the way
 * are removed.
 */
export async function commitChanges(changes: FileChanges, logger: Logger): Promise<void> {
  const applied: Applied[] = [];
  const createdDirs: CreatedDirs[] = [];
  const ordered = [...changes].sort(([, a], [, b]) => Number(b === null) - Number(a === null));
  let failedPath = "";
  let failedVerb = "write";
  try {
    for (const [path, content] of ordered) {
      failedPath = path;
      failedVerb = content === null ? "delete" : "write";
      // Deleting a symlink removes the link; writing through one changes the file it names.
      const target = content === null ? path : await writeTarget(path);
      const original = await snapshot(target);
      if (content === null) {
        // A file added and deleted by the same patch never reached the disk.
        if (original.kind === "absent") continue;
        await unlink(target);
      } else {
        const top = await mkdir(dirname(target), { recursive: true });
        if (top !== undefined) createdDirs.push({ top, deepest: dirname(target) });
        await writeAtomic(target, content, original.kind === "file" ? original.mode : undefined);
      }
      applied.push({ target, original });
    }
  } catch (err) {
    const unrestored: string[] = [];
    for (const change of applied.reverse()) {
      try {
        await restore(change);
      } catch (restoreErr) {
        logger.error(
          { err: restoreErr, path: change.target },
          "apply_patch could not restore a file after a failed write",
        );
        unrestored.push(change.target);
      }
    }
    for (const dirs of createdDirs.reverse()) await removeCreatedDirs(dirs);
    const outcome =
      unrestored.length === 0
        ? "The patch was not applied; no files were changed."
        : `The patch was not applied, and these files could not be restored: ${unrestored.join(", ")}`;
    throw new PatchApplyError(`Failed to ${failedVerb} file ${failedPath}: ${ioErrorText(err)}\n${outcome}`, {
      stage: "write",
    });
  }
}
