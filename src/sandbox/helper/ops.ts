import { createHash, randomBytes } from "node:crypto";
import fs, { constants, type Dirent, type Stats } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import type { DirEntry, FileKind, FileOps, FileStat } from "../../protocol/index.js";
import { isLocalDisk } from "./localDisk.js";

/*
 * The file operations themselves, run in the host process (full access) or inside the sandbox
 * by the resident helper (./main.ts), which then makes the kernel resolve every path. Node
 * built-ins only: the helper is bundled on its own and runs with nothing of node_modules.
 */

type Maybe<T> = T | Promise<T>;

/**
 * The system calls the operations are made of: promises in the host (its event loop never
 * waits on a disk; but see `plainSmallFiles`), plain calls in the helper (a process of its
 * own, where a hop to the I/O thread pool per call cost more than the call: a write took
 * 1.3 ms instead of 0.6).
 */
interface Sys {
  open(p: string, flags: number, mode: number): Maybe<number>;
  fstat(fd: number): Maybe<Stats>;
  read(fd: number, buf: Buffer, offset: number, length: number, position: number): Maybe<number>;
  write(fd: number, buf: Buffer, offset: number, length: number): Maybe<number>;
  fchmod(fd: number, mode: number): Maybe<void>;
  close(fd: number): Maybe<void>;
  stat(p: string): Maybe<Stats>;
  lstat(p: string): Maybe<Stats>;
  realpath(p: string): Maybe<string>;
  readlink(p: string): Maybe<string>;
  readdir(p: string): Maybe<Dirent[]>;
  mkdir(p: string, recursive: boolean): Maybe<string | undefined>;
  unlink(p: string): Maybe<void>;
  rmdir(p: string): Maybe<void>;
  rename(from: string, to: string): Maybe<void>;
  symlink(target: string, p: string): Maybe<void>;
}

const asyncRead = promisify(fs.read);
const asyncWrite = promisify(fs.write);

const asyncSys: Sys = {
  open: promisify(fs.open),
  fstat: promisify(fs.fstat),
  read: async (fd, buf, offset, length, position) => (await asyncRead(fd, buf, offset, length, position)).bytesRead,
  write: async (fd, buf, offset, length) => (await asyncWrite(fd, buf, offset, length)).bytesWritten,
  fchmod: promisify(fs.fchmod),
  close: promisify(fs.close),
  stat: (p) => fs.promises.stat(p),
  lstat: (p) => fs.promises.lstat(p),
  realpath: (p) => fs.promises.realpath(p),
  readlink: (p) => fs.promises.readlink(p),
  readdir: (p) => fs.promises.readdir(p, { withFileTypes: true }),
  mkdir: (p, recursive) => fs.promises.mkdir(p, { recursive }),
  unlink: (p) => fs.promises.unlink(p),
  rmdir: (p) => fs.promises.rmdir(p),
  rename: (from, to) => fs.promises.rename(from, to),
  symlink: (target, p) => fs.promises.symlink(target, p),
};

const syncSys: Sys = {
  open: (p, flags, mode) => fs.openSync(p, flags, mode),
  fstat: (fd) => fs.fstatSync(fd),
  read: (fd, buf, offset, length, position) => fs.readSync(fd, buf, offset, length, position),
  write: (fd, buf, offset, length) => fs.writeSync(fd, buf, offset, length),
  fchmod: (fd, mode) => {
    fs.fchmodSync(fd, mode);
  },
  close: (fd) => {
    fs.closeSync(fd);
  },
  stat: (p) => fs.statSync(p),
  lstat: (p) => fs.lstatSync(p),
  realpath: (p) => fs.realpathSync(p),
  readlink: (p) => fs.readlinkSync(p),
  readdir: (p) => fs.readdirSync(p, { withFileTypes: true }),
  mkdir: (p, recursive) => fs.mkdirSync(p, { recursive }),
  unlink: (p) => {
    fs.unlinkSync(p);
  },
  rmdir: (p) => {
    fs.rmdirSync(p);
  },
  rename: (from, to) => {
    fs.renameSync(from, to);
  },
  symlink: (target, p) => {
    fs.symlinkSync(target, p);
  },
};

/** Symlinks followed by a write before it counts as a loop (as Linux's ELOOP). */
const MAX_LINKS = 40;
/** Read size when the file's size says nothing (a /proc file says 0 and has contents). */
const READ_STEP = 64 * 1024;
/**
 * The largest file the host reads by plain calls once it is open (on a local disk): 64 KiB
 * from the page cache is 5-20 µs, less than the hops to the I/O pool it saves; read from a
 * cold disk, about one seek. It also bounds what is read by plain calls of a file that grows
 * meanwhile.
 */
const PLAIN_READ_MAX = 64 * 1024;

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

/**
 * The real path of the file open on `fd`, as the kernel names the descriptor: the file that
 * was read, with no second walk of its path (which another process could change meanwhile).
 * A plain call: procfs answers from memory. Undefined where it cannot tell (no /proc, a file
 * deleted since it was opened).
 */
function nameOf(fd: number, st: Stats): string | undefined {
  if (process.platform !== "linux" || st.nlink === 0) return undefined;
  try {
    const name = fs.readlinkSync(`/proc/self/fd/${fd}`);
    return name.startsWith("/") && !name.endsWith(" (deleted)") ? name : undefined;
  } catch {
    return undefined;
  }
}

const notRegular = (p: string): Error => Object.assign(new Error(`${p} is not a regular file`), { code: "ENOTREG" });
/** A write that would land at `target`, not where the call's paths were judged (`path`: where). */
const changed = (p: string, target: string): Error =>
  Object.assign(new Error(`${p} would land at ${target}, not where it was judged`), { code: "ECHANGED", path: target });
const isDirectory = (p: string): Error =>
  Object.assign(new Error(`EISDIR: illegal operation on a directory, ${p}`), { code: "EISDIR" });

/**
 * `plainSmallFiles`: after `sys` opened a regular file of at most `PLAIN_READ_MAX` bytes on a
 * local disk, its state, bytes and close are plain calls (the host's shortcut; the helper's
 * calls are all plain already). The path is still resolved on the I/O pool: it may cross a
 * network or FUSE mount. The state is taken by a plain call for every file: the open has just
 * looked up the inode (and filled a network file system's attribute cache), so `fstat` on the
 * descriptor answers from memory.
 */
function fileOps(sys: Sys, plainSmallFiles = false): FileOps {
  /** Up to `length` bytes from `position`, until the end of the file (not its stated size). */
  async function readRange(
    fd: number,
    size: number,
    position: number,
    length: number,
    plain: boolean,
  ): Promise<Buffer> {
    const chunks: Buffer[] = [];
    let total = 0;
    while (total < length) {
      const io = plain && total <= PLAIN_READ_MAX ? syncSys : sys;
      // One byte beyond the stated size: a short read of a regular file is its end, so a
      // whole small file takes one read into a buffer of its size.
      const left = size - position - total;
      const want = Math.min(length - total, left >= 0 ? left + 1 : READ_STEP);
      const buf = Buffer.allocUnsafe(want);
      const n = await io.read(fd, buf, 0, want, position + total);
      if (n === 0) break;
      chunks.push(n === want ? buf : buf.subarray(0, n));
      total += n;
      if (n < want) break;
    }
    return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total);
  }

  /**
   * Non-blocking, so a FIFO (which would hold a thread of the I/O pool until a writer comes,
   * and four of them every later file read of the process) is refused at once; checked on the
   * open descriptor, so what was checked is what is read.
   */
  async function read(
    p: string,
    opts: { position?: number; length?: number; named?: boolean } = {},
  ): Promise<{ data: Buffer; stat: FileStat; real?: string }> {
    const fd = await sys.open(p, constants.O_RDONLY | constants.O_NONBLOCK, 0);
    let plain = false;
    try {
      const st = await (plainSmallFiles ? syncSys : sys).fstat(fd);
      if (!st.isFile()) throw st.isDirectory() ? isDirectory(p) : notRegular(p);
      plain = plainSmallFiles && st.size <= PLAIN_READ_MAX && (await isLocalDisk(st.dev, fd));
      const data = await readRange(fd, st.size, opts.position ?? 0, opts.length ?? Infinity, plain);
      const real = opts.named === true ? nameOf(fd, st) : undefined;
      return real === undefined ? { data, stat: statOf(st) } : { data, stat: statOf(st), real };
    } finally {
      await (plain ? syncSys : sys).close(fd);
    }
  }

  /** Where a write to `p` lands: each symlink followed by hand (a dangling one too); the file's state when it exists. */
  async function writeTarget(p: string): Promise<{ target: string; existing: Stats | undefined }> {
    let target = path.resolve(p);
    for (let links = 0; links <= MAX_LINKS; links++) {
      let st: Stats;
      try {
        st = await sys.lstat(target);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return { target, existing: undefined };
        throw err;
      }
      if (st.isSymbolicLink()) {
        target = path.resolve(path.dirname(target), await sys.readlink(target));
        continue;
      }
      if (!st.isFile()) throw st.isDirectory() ? isDirectory(p) : notRegular(p);
      return { target, existing: st };
    }
    throw Object.assign(new Error(`too many levels of symbolic links: ${p}`), { code: "ELOOP" });
  }

  /**
   * The directory `dir` (a real path) open, when the system can name a descriptor: the temp file
   * and the rename then go through `/proc/self/fd/N`, into the directory that was checked, even
   * if a link on its path is flipped after the check. Undefined where it cannot (no /proc).
   */
  async function pinDirectory(p: string, dir: string, base: string): Promise<number | undefined> {
    if (process.platform !== "linux") return undefined;
    const fd = await sys.open(dir, constants.O_RDONLY | constants.O_DIRECTORY, 0);
    try {
      const name = await sys.readlink(`/proc/self/fd/${fd}`);
      // A link flipped between the real path's walk and this open: not the directory checked.
      if (name !== dir) throw changed(p, path.join(name, base));
      return fd;
    } catch (err) {
      await sys.close(fd);
      throw err;
    }
  }

  /**
   * A temp file beside the target (never following a link there), then a rename: readers see the
   * old file or the new. With `onlyAt`, only where the call's paths were judged (see FileOps).
   */
  async function write(
    p: string,
    data: Buffer | string,
    opts: { mode?: number; onlyAt?: readonly string[] } = {},
  ): Promise<{ path: string; stat: FileStat }> {
    const { target: asked, existing } = await writeTarget(p);
    // The directory resolved once, so the temp file and the rename meet in the same place even
    // while a link on the way is flipped (the kernel still refuses a place outside the roots).
    const dir = await sys.realpath(path.dirname(asked));
    const base = path.basename(asked);
    const target = path.join(dir, base);
    if (opts.onlyAt !== undefined && !opts.onlyAt.includes(target)) throw changed(p, target);
    const pinned = opts.onlyAt === undefined ? undefined : await pinDirectory(p, dir, base);
    const into = pinned === undefined ? dir : `/proc/self/fd/${pinned}`;
    const tmp = path.join(into, `.${base}.${randomBytes(6).toString("hex")}.tmp`);
    const bytes = typeof data === "string" ? Buffer.from(data) : data;
    try {
      const fd = await sys.open(
        tmp,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o666,
      );
      try {
        for (let done = 0; done < bytes.length;) done += await sys.write(fd, bytes, done, bytes.length - done);
        const mode = opts.mode ?? (existing ? existing.mode & 0o7777 : undefined);
        if (mode !== undefined) await sys.fchmod(fd, mode);
        await sys.rename(tmp, path.join(into, base));
        // Taken on the descriptor after the rename (which moves the file's ctime): its state now.
        return { path: target, stat: statOf(await sys.fstat(fd)) };
      } finally {
        await sys.close(fd);
      }
    } catch (err) {
      await Promise.resolve()
        .then(() => sys.unlink(tmp))
        .catch(() => undefined);
      // Named by the file asked for, not the temp file beside it.
      if (err instanceof Error) err.message = err.message.split(tmp).join(target);
      throw err;
    } finally {
      if (pinned !== undefined) await sys.close(pinned);
    }
  }

  return {
    stat: async (p) => statOf(await sys.stat(p)),
    lstat: async (p) => statOf(await sys.lstat(p)),
    realpath: async (p) => sys.realpath(p),
    readlink: async (p) => sys.readlink(p),
    readdir: async (p): Promise<DirEntry[]> => (await sys.readdir(p)).map((d) => ({ name: d.name, kind: kindOf(d) })),
    read,
    hash: async (p) => {
      const { data, stat: st } = await read(p);
      return { sha256: createHash("sha256").update(data).digest("hex"), stat: st };
    },
    write,
    mkdir: async (p, opts) => sys.mkdir(p, opts?.recursive ?? false),
    unlink: async (p) => sys.unlink(p),
    rmdir: async (p) => sys.rmdir(p),
    rename: async (from, to) => sys.rename(from, to),
    symlink: async (target, p) => sys.symlink(target, p),
  };
}

/**
 * The operations on this process's own view of the file system: on the I/O pool, so the event
 * loop never waits on a disk, but for a small file on a local disk once it is open.
 */
export const localFileOps: FileOps = fileOps(asyncSys, true);

/** The same operations as plain system calls: the resident helper's, a process of its own. */
export const helperFileOps: FileOps = fileOps(syncSys);

/** The operations' names: the helper serves exactly these. */
export const FILE_OPS = Object.keys(localFileOps) as Array<keyof FileOps>;
