import { dirname } from "node:path";
import type { Logger } from "pino";
import type { FileOps } from "../../protocol/index.js";
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
async function writeTarget(files: FileOps, path: string): Promise<string> {
  try {
    return (await files.lstat(path)).kind === "symlink" ? await files.realpath(path) : path;
  } catch {
    return path;
  }
}

async function snapshot(files: FileOps, target: string): Promise<Original> {
  try {
    if ((await files.lstat(target)).kind === "symlink") return { kind: "link", to: await files.readlink(target) };
    // Non-blocking and checked: a FIFO is refused here, never waited on.
    const { data, stat } = await files.read(target);
    return { kind: "file", data, mode: stat.mode };
  } catch (err) {
    if (errCode(err) === "ENOENT") return { kind: "absent" };
    throw err;
  }
}

async function unlinkIfPresent(files: FileOps, path: string): Promise<void> {
  await files.unlink(path).catch((err: unknown) => {
    if (errCode(err) !== "ENOENT") throw err;
  });
}

async function restore(files: FileOps, { target, original }: Applied): Promise<void> {
  if (original.kind === "absent") {
    await unlinkIfPresent(files, target);
  } else if (original.kind === "link") {
    await unlinkIfPresent(files, target);
    await files.symlink(original.to, target);
  } else {
    await files.write(target, original.data, { mode: original.mode });
  }
}

async function removeCreatedDirs(files: FileOps, { top, deepest }: CreatedDirs): Promise<void> {
  for (let dir = deepest; ; dir = dirname(dir)) {
    try {
      await files.rmdir(dir); // only empty directories: never anything we did not create
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
 * are removed. Every operation goes through `files` (inside the sandbox under bubblewrap), each
 * write atomic (a temp file beside the target, then a rename).
 */
export async function commitChanges(files: FileOps, changes: FileChanges, logger: Logger): Promise<void> {
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
      const target = content === null ? path : await writeTarget(files, path);
      const original = await snapshot(files, target);
      if (content === null) {
        // A file added and deleted by the same patch never reached the disk.
        if (original.kind === "absent") continue;
        await files.unlink(target);
      } else {
        const top = await files.mkdir(dirname(target), { recursive: true });
        if (top !== undefined) createdDirs.push({ top, deepest: dirname(target) });
        await files.write(target, content, original.kind === "file" ? { mode: original.mode } : {});
      }
      applied.push({ target, original });
    }
  } catch (err) {
    const unrestored: string[] = [];
    for (const change of applied.reverse()) {
      try {
        await restore(files, change);
      } catch (restoreErr) {
        logger.error(
          { err: restoreErr, path: change.target },
          "apply_patch could not restore a file after a failed write",
        );
        unrestored.push(change.target);
      }
    }
    for (const dirs of createdDirs.reverse()) await removeCreatedDirs(files, dirs);
    const outcome =
      unrestored.length === 0
        ? "The patch was not applied; no files were changed."
        : `The patch was not applied, and these files could not be restored: ${unrestored.join(", ")}`;
    throw new PatchApplyError(`Failed to ${failedVerb} file ${failedPath}: ${ioErrorText(err)}\n${outcome}`, {
      stage: "write",
    });
  }
}
