import {
  chmodSync,
  closeSync,
  constants,
  fdatasync,
  fstatSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readSync,
  write,
} from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { JournalRecord, TurnJournal } from "./journal.js";

export interface FileJournalOptions {
  /**
   * Rewrites each record before it is written (mask arguments and outputs). An `accepted`
   * record it changes is marked `redacted`: a resumed turn answers that call as interrupted
   * rather than run what the redaction left of it.
   */
  redact?: (record: JournalRecord) => JournalRecord;
}

/** What a turn id may be, as a file name: from a client, so hostile until checked. */
const TURN_ID = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}$/;

/** Throws a TypeError naming the id unless it is safe as a file name. */
export function checkTurnId(turnId: string): void {
  if (typeof turnId !== "string" || !TURN_ID.test(turnId))
    throw new TypeError(
      `turn id must be 1-128 letters, digits, "_", "-" or "." (not first), got ${JSON.stringify(turnId)}`,
    );
}

interface OpenTurn {
  fd: number;
  lines: string[];
  /** Its `turn_end` is in `lines`: the file is closed once they are written. */
  ending: boolean;
}

/**
 * The built-in journal (DESIGN section 17): `{dir}/{turnId}.jsonl`, 0600 in a 0700 directory.
 * Records appended while a write is in flight go out together in the next one, with one
 * `fdatasync` per file per batch: calls that settle together pay for one sync.
 */
export class FileJournal implements TurnJournal {
  private readonly turns = new Map<string, OpenTurn>();
  private batch: Promise<void> | undefined;
  private flushing: Promise<void> | undefined;
  private closed = false;

  constructor(
    readonly dir: string,
    private readonly opts: FileJournalOptions = {},
  ) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // An existing directory is tightened too: the journal holds arguments and outputs.
    chmodSync(dir, 0o700);
  }

  /** The file a turn's records go to. */
  fileOf(turnId: string): string {
    checkTurnId(turnId);
    return path.join(this.dir, `${turnId}.jsonl`);
  }

  append(record: JournalRecord): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`journal ${this.dir} is closed`));
    const turn = this.open(record.turnId);
    let written = this.opts.redact ? this.opts.redact(record) : record;
    if (written !== record && written.type === "accepted") written = { ...written, redacted: true };
    turn.lines.push(`${JSON.stringify(written)}\n`);
    if (record.type === "turn_end") turn.ending = true;
    return (this.batch ??= this.nextBatch());
  }

  async *load(turnId: string): AsyncIterable<JournalRecord> {
    const file = this.fileOf(turnId);
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
      throw err;
    }
    const lines = text.split("\n");
    // What follows the last newline was being written when the process stopped: never handed out.
    lines.pop();
    for (const [i, line] of lines.entries()) {
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch {
        throw new Error(`${file}:${String(i + 1)}: not a journal record (invalid JSON)`);
      }
      if (typeof record !== "object" || record === null || typeof (record as { type?: unknown }).type !== "string")
        throw new Error(`${file}:${String(i + 1)}: not a journal record (no type)`);
      yield { ...(record as JournalRecord), turnId };
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.flushAll();
    this.closed = true;
    for (const turn of this.turns.values()) closeSync(turn.fd);
    this.turns.clear();
  }

  private open(turnId: string): OpenTurn {
    const known = this.turns.get(turnId);
    if (known) return known;
    const file = this.fileOf(turnId);
    // No link is followed: a planted symlink does not redirect the journal.
    const fd = openSync(
      file,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
      0o600,
    );
    try {
      if (!fstatSync(fd).isFile()) throw new Error(`${file} is not a regular file`);
      cutTornTail(fd, file);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    const turn: OpenTurn = { fd, lines: [], ending: false };
    this.turns.set(turnId, turn);
    return turn;
  }

  private nextBatch(): Promise<void> {
    // After the write in flight, so records reach the file in append order.
    const previous = this.flushing ?? Promise.resolve();
    const batch = previous
      .catch(() => undefined)
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(() => {
        this.batch = undefined;
        return this.writeOut();
      });
    this.flushing = batch;
    // Callers that need no durability ignore it; those that await still see the failure.
    batch.catch(() => undefined);
    return batch;
  }

  private async writeOut(): Promise<void> {
    const work: Promise<void>[] = [];
    for (const [turnId, turn] of this.turns) {
      if (turn.lines.length === 0) continue;
      const data = Buffer.from(turn.lines.join(""));
      turn.lines = [];
      const written = writeAndSync(turn.fd, data, this.fileOf(turnId));
      if (turn.ending) {
        // Later records of this turn open the file again.
        this.turns.delete(turnId);
        const close = (): void => {
          closeSync(turn.fd);
        };
        written.then(close, close);
      }
      work.push(written);
    }
    await Promise.all(work);
  }

  private async flushAll(): Promise<void> {
    // A batch is always the newest `flushing`; one scheduled while waiting replaces it.
    for (let tail = this.flushing; tail !== undefined; tail = tail === this.flushing ? undefined : this.flushing)
      await tail.catch(() => undefined);
  }
}

/** A crash mid-write leaves a line without its newline: cut it, so new records start a line. */
function cutTornTail(fd: number, file: string): void {
  const size = fstatSync(fd).size;
  if (size === 0) return;
  const rfd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const chunk = Buffer.alloc(Math.min(size, 1 << 20));
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - chunk.length);
      const n = readSync(rfd, chunk, 0, end - start, start);
      const nl = chunk.subarray(0, n).lastIndexOf(0x0a);
      if (nl >= 0) {
        if (start + nl + 1 !== size) ftruncateSync(fd, start + nl + 1);
        return;
      }
      end = start;
    }
    ftruncateSync(fd, 0);
  } finally {
    closeSync(rfd);
  }
}

function writeAndSync(fd: number, data: Buffer, file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (err: Error): void => {
      reject(new Error(`journal ${file}: ${err.message}`));
    };
    const from = (offset: number): void => {
      write(fd, data, offset, data.length - offset, null, (err, n) => {
        if (err) {
          fail(err);
          return;
        }
        if (offset + n < data.length) {
          from(offset + n);
          return;
        }
        fdatasync(fd, (syncErr) => {
          if (syncErr) fail(syncErr);
          else resolve();
        });
      });
    };
    from(0);
  });
}
