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
/** Larger files are judged by their stat alone, even when racy. */
const MAX_HASHED_BYTES = 16 * 1024 * 1024;

export const fileReadTexts = {
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
      const real = await files.realpath(path);
      const st = await files.stat(real);
      if (st.kind !== "file") return undefined;
      const seen = statOf(st);
      if (racy(st) && st.size <= MAX_HASHED_BYTES) {
        const { data } = await files.read(real);
        // Changed while it was hashed: keep the stat only, which the next check will not match.
        if (data.length === st.size) seen.sha256 = sha256(data);
      }
      return { real, seen };
    } catch {
      return undefined;
    }
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
    const real = await files.realpath(path).catch(() => path);
    const seen = this.files.get(real);
    if (seen === undefined) throw FunctionCallError.respondToModel(fileReadTexts.notRead(shown));
    let same: boolean;
    try {
      const now = statOf(await files.stat(real));
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

  /**
   * The session wrote `path` (`data`: what it wrote, else the file is read back): it has seen
   * the file as it is now.
   */
  async recordWrite(files: FileOps, path: string, data?: Buffer | string): Promise<void> {
    try {
      const real = await files.realpath(path);
      if (data === undefined) {
        const { sha256: hash, stat: st } = await files.hash(real);
        this.files.set(real, { ...statOf(st), sha256: hash });
        return;
      }
      const st = await files.stat(real);
      this.files.set(real, { ...statOf(st), sha256: sha256(data) });
    } catch {
      // Gone already: nothing to remember.
    }
  }
}
