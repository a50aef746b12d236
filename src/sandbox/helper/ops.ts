import { createHash, randomBytes } from "node:crypto";
import { constants, type Stats } from "node:fs";
import {
  lstat,
  mkdir,
  open,
  readdir,
  readlink,
  realpath,
  rename,
  rmdir,
  stat,
  symlink,
  unlink,
} from "node:fs/promises";
import path from "node:path";
import type { DirEntry, FileKind, FileOps, FileStat } from "../../protocol/index.js";

/*
 * The file operations themselves, run in the host process (full access) or inside the sandbox
 * by the resident helper (./main.ts), which then makes the kernel resolve every path. Node
 * built-ins only: the helper is bundled on its own and runs with nothing of node_modules.
 */

/** Symlinks followed by a write before it counts as a loop (as Linux's ELOOP). */
const MAX_LINKS = 40;

const kindOf = (st: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): FileKind =>
  st.isFile() ? "file" : st.isDirectory() ? "directory" : st.isSymbolicLink() ? "symlink" : "other";

const statOf = (st: Stats): FileStat => ({
  kind: kindOf(st),
  size: st.size,
  mode: st.mode & 0o7777,
  ino: st.ino,
  mtimeMs: st.mtimeMs,
  ctimeMs: st.ctimeMs,
});

const notRegular = (p: string): Error => Object.assign(new Error(`${p} is not a regular file`), { code: "ENOTREG" });
const isDirectory = (p: string): Error =>
  Object.assign(new Error(`EISDIR: illegal operation on a directory, ${p}`), { code: "EISDIR" });

/**
 * Non-blocking, so a FIFO (which would hold a thread of the I/O pool until a writer comes, and
 * four of them every later file read of the process) is refused at once; checked on the open
 * descriptor, so what was checked is what is read.
 */
async function read(
  p: string,
  opts: { position?: number; length?: number } = {},
): Promise<{ data: Buffer; stat: FileStat }> {
  const handle = await open(p, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw st.isDirectory() ? isDirectory(p) : notRegular(p);
    const position = opts.position ?? 0;
    if (opts.length === undefined && position === 0) return { data: await handle.readFile(), stat: statOf(st) };
    // Not capped at the size: /proc files say 0 and still have contents.
    const data = Buffer.allocUnsafe(opts.length ?? Math.max(st.size - position, 0));
    let filled = 0;
    while (filled < data.length) {
      const { bytesRead } = await handle.read(data, filled, data.length - filled, position + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return { data: data.subarray(0, filled), stat: statOf(st) };
  } finally {
    await handle.close();
  }
}

/** Where a write to `p` lands: each symlink followed by hand (a dangling one too); the file's state when it exists. */
async function writeTarget(p: string): Promise<{ target: string; existing: Stats | undefined }> {
  let target = path.resolve(p);
  for (let links = 0; links <= MAX_LINKS; links++) {
    let st: Stats;
    try {
      st = await lstat(target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return { target, existing: undefined };
      throw err;
    }
    if (st.isSymbolicLink()) {
      target = path.resolve(path.dirname(target), await readlink(target));
      continue;
    }
    if (!st.isFile()) throw st.isDirectory() ? isDirectory(p) : notRegular(p);
    return { target, existing: st };
  }
  throw Object.assign(new Error(`too many levels of symbolic links: ${p}`), { code: "ELOOP" });
}

/** A temp file beside the target (never following a link there), then a rename: readers see the old file or the new. */
async function write(
  p: string,
  data: Buffer | string,
  opts: { mode?: number } = {},
): Promise<{ path: string; stat: FileStat }> {
  const { target: asked, existing } = await writeTarget(p);
  // The directory resolved once, so the temp file and the rename meet in the same place even
  // while a link on the way is flipped (the kernel still refuses a place outside the roots).
  const target = path.join(await realpath(path.dirname(asked)), path.basename(asked));
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    const handle = await open(
      tmp,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o666,
    );
    try {
      await handle.writeFile(data);
      const mode = opts.mode ?? (existing ? existing.mode & 0o7777 : undefined);
      if (mode !== undefined) await handle.chmod(mode);
      await rename(tmp, target);
      // Taken on the descriptor after the rename (which moves the file's ctime): its state now.
      return { path: target, stat: statOf(await handle.stat()) };
    } finally {
      await handle.close();
    }
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    // Named by the file asked for, not the temp file beside it.
    if (err instanceof Error) err.message = err.message.split(tmp).join(target);
    throw err;
  }
}

/** The operations on this process's own view of the file system. */
export const localFileOps: FileOps = {
  stat: async (p) => statOf(await stat(p)),
  lstat: async (p) => statOf(await lstat(p)),
  realpath: (p) => realpath(p),
  readlink: (p) => readlink(p),
  readdir: async (p): Promise<DirEntry[]> =>
    (await readdir(p, { withFileTypes: true })).map((d) => ({ name: d.name, kind: kindOf(d) })),
  read,
  hash: async (p) => {
    const { data, stat: st } = await read(p);
    return { sha256: createHash("sha256").update(data).digest("hex"), stat: st };
  },
  write,
  mkdir: (p, opts) => mkdir(p, { recursive: opts?.recursive ?? false }),
  unlink: (p) => unlink(p),
  rmdir: (p) => rmdir(p),
  rename: (from, to) => rename(from, to),
  symlink: (target, p) => symlink(target, p),
};

/** The operations' names: the helper serves exactly these. */
export const FILE_OPS = Object.keys(localFileOps) as Array<keyof FileOps>;
