import { createHash } from "node:crypto";
import { FunctionCallError, type FileOps, type FileStat } from "../protocol/index.js";

/** A file as the session last saw it. */
interface Seen {
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  /** Only when the stat alone could miss a change (see `RACY_MS`) or the session wrote the bytes. */
  sha256?: string;
}

/** A file's state taken before it is read; `remember` it once the read succeeded. */
export interface FileSnapshot {
  /** The real path (symlinks resolved): the ledger's key. */
  readonly real: string;
  readonly seen: Readonly<Seen>;
}

/**
 * A file whose timestamps are this close to now may be changed again without its timestamps
 * moving (file-system clocks tick coarsely: a jiffy on Linux, 1 s on HFS+, 2 s on FAT, plus
 * NFS clock skew); such a state also records a hash of the contents (git's "racy clean" rule).
 */
const RACY_MS = 3_000;
/** What `snapshot` reads of a file's start: a smaller racy file is hashed from it. */
const SNAPSHOT_HEAD_BYTES = 64 * 1024;
/** Larger files are judged by their stat alone, even when racy. */
const MAX_HASHED_BYTES = 16 * 1024 * 1024;

const fileReadTexts = {
  notRead: (path: string): string => `read ${path} before changing it`,
  changed: (path: string): string => `${path} changed since it was read`,
};

const sha256 = (data: Buffer | string): string => createHash("sha256").update(data).digest("hex");

const statOf = (st: FileStat): Seen => ({ ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs });
const sameStat = (a: Seen, b: Seen): boolean =>
  a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;
const racy = (st: FileStat): boolean => Date.now() - Math.max(st.mtimeMs, st.ctimeMs) < RACY_MS;

/**
 * What the session has seen of each file (DESIGN section 15): one per router, created by
 * `createToolRouter` and handed to every factory (`ToolFactoryContext.fileReads`). `read_file`
 * records what it read (a partial read counts), the file tools record what they wrote, and
 * `edit_file` / `write_file` refuse to change an existing file the session has not seen as it
 * is now. A state is the file's inode, size, mtime and ctime, plus a SHA-256 of its contents
 * when those timestamps are less than 3 s old (a write in the same clock tick would leave them
 * unchanged). Keyed by real path, so a symlink and its target are one file. Every stat and
 * hash goes through the caller's `files` (the turn's environment: inside the sandbox there).
 */
export class FileReadLedger {
  private readonly files = new Map<string, Seen>();

  /** The regular file at `path` now, or undefined (missing, not a regular file, unreadable). Never throws. */
  async snapshot(files: FileOps, path: string): Promise<FileSnapshot | undefined> {
    try {
      // In parallel: one round trip to a sandbox's helper.
      const [head, real] = await Promise.all([files.read(path, { length: SNAPSHOT_HEAD_BYTES }), files.realpath(path)]);
      return await this.snapshotOf(files, real, head.stat, head.data);
    } catch {
      return undefined;
    }
  }

  /**
   * The snapshot of a file already opened: `real` its real path, `stat` its state on the open
   * descriptor before reading, `head` the bytes read from its start (hashed when they are the
   * whole file; a racy file read only in part is hashed apart). Never throws.
   */
  async snapshotOf(files: FileOps, real: string, stat: FileStat, head: Buffer): Promise<FileSnapshot | undefined> {
    const seen = statOf(stat);
    if (racy(stat) && stat.size <= MAX_HASHED_BYTES) {
      if (head.length === stat.size) seen.sha256 = sha256(head);
      else {
        const hashed = await files.hash(real).catch(() => undefined);
        if (hashed === undefined) return undefined;
        // Changed since it was opened: keep the stat only, which the next check will not match.
        if (sameStat(statOf(hashed.stat), seen)) seen.sha256 = hashed.sha256;
      }
    }
    return { real, seen };
  }

  /** The session has seen the file as `snapshot` found it (the read that followed succeeded). */
  remember(snapshot: FileSnapshot): void {
    this.files.set(snapshot.real, { ...snapshot.seen });
  }

  /**
   * Throws (respond to model) unless the session has seen the existing file at `path` as it is
   * now: `read {shown} before changing it`, `{shown} changed since it was read`. `data`: the
   * file's contents when the caller has just read them (else read here when needed).
   */
  async check(files: FileOps, path: string, shown: string, data?: Buffer): Promise<void> {
    const [real, st] = await Promise.all([
      files.realpath(path).catch(() => path),
      files.stat(path).catch(() => undefined), // gone or unreadable: not as it was read
    ]);
    const seen = this.files.get(real);
    if (seen === undefined) throw FunctionCallError.respondToModel(fileReadTexts.notRead(shown));
    let same: boolean;
    try {
      if (st === undefined) throw new Error("gone");
      const now = statOf(st);
      same = sameStat(seen, now);
      if (same && seen.sha256 !== undefined) {
        const bytes = data ?? (await files.read(real)).data;
        same = bytes.length === now.size && sha256(bytes) === seen.sha256;
      }
    } catch {
      same = false; // gone or unreadable since: not as it was read
    }
    if (!same) throw FunctionCallError.respondToModel(fileReadTexts.changed(shown));
  }

  /** The session wrote `data` where `landed` says (`FileOps.write`'s answer): it has seen that file as it is now. */
  rememberWrite(landed: { path: string; stat: FileStat }, data: Buffer | string): void {
    this.files.set(landed.path, { ...statOf(landed.stat), sha256: sha256(data) });
  }

  /**
   * The session wrote `path` (`data`: what it wrote, else the file is read back): it has seen
   * the file as it is now.
   */
  async recordWrite(files: FileOps, path: string, data?: Buffer | string): Promise<void> {
    try {
      // In parallel: one round trip to a sandbox's helper.
      const [real, known] = await Promise.all([
        files.realpath(path),
        data === undefined ? files.hash(path) : files.stat(path).then((st) => ({ stat: st, sha256: sha256(data) })),
      ]);
      this.files.set(real, { ...statOf(known.stat), sha256: known.sha256 });
    } catch {
      // Gone already: nothing to remember.
    }
  }
}
