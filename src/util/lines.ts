import { constants } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";

const CHUNK_BYTES = 64 * 1024;
/** Bytes sniffed for a NUL, the way git and ripgrep tell binary files apart. */
export const BINARY_SNIFF_BYTES = 8 * 1024;

export interface LineVisit {
  /** 1-based line number. */
  number: number;
  /** The line without its `\n` / `\r\n`, cut to `maxLineBytes` bytes; valid only during the visit. */
  bytes: Buffer;
}

export interface ReadLinesOptions {
  /** Bytes kept per line; the rest of a longer line is skipped without being buffered. */
  maxLineBytes: number;
  /** Return `false` to stop reading. */
  visit: (line: LineVisit) => boolean;
  signal?: AbortSignal;
  /** Called with the first chunk before any line is visited; `false` stops at once. */
  onFirstChunk?: (chunk: Buffer) => boolean;
}

/**
 * Opens a regular file for reading and nothing else: non-blocking, so a FIFO (which would
 * block a thread of the file I/O pool until a writer comes) or a device is refused at once.
 * Rejects with code `ENOTREG` for anything but a regular file.
 */
export async function openRegularFile(path: string): Promise<FileHandle> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if ((await handle.stat()).isFile()) return handle;
  } catch (err) {
    await handle.close();
    throw err;
  }
  await handle.close();
  throw Object.assign(new Error(`${path} is not a regular file`), { code: "ENOTREG" });
}

/**
 * Streams a file line by line with bounded memory: a chunk plus one capped line, however
 * large the file or its lines. Returns the number of lines seen (all of them unless stopped).
 */
export async function readLines(path: string, opts: ReadLinesOptions): Promise<number> {
  const handle = await openRegularFile(path);
  try {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    const line = Buffer.allocUnsafe(opts.maxLineBytes);
    let lineLength = 0;
    let number = 0;
    let first = true;
    let pending = false; // a line has started but not ended
    const emit = (): boolean => {
      number++;
      pending = false;
      let end = lineLength;
      if (end > 0 && line[end - 1] === 0x0d && end < opts.maxLineBytes) end--;
      const keep = opts.visit({ number, bytes: line.subarray(0, end) });
      lineLength = 0;
      return keep;
    };
    for (;;) {
      opts.signal?.throwIfAborted();
      const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      const data = chunk.subarray(0, bytesRead);
      if (first) {
        first = false;
        if (opts.onFirstChunk && !opts.onFirstChunk(data)) return number;
      }
      let start = 0;
      while (start < data.length) {
        const nl = data.indexOf(0x0a, start);
        const end = nl === -1 ? data.length : nl;
        const room = opts.maxLineBytes - lineLength;
        if (room > 0) lineLength += data.copy(line, lineLength, start, Math.min(end, start + room));
        pending = true;
        if (nl === -1) break;
        if (!emit()) return number;
        start = nl + 1;
      }
    }
    if (pending) emit();
    return number;
  } finally {
    await handle.close();
  }
}

/** True when the sniffed bytes contain a NUL. */
export function looksBinary(head: Buffer): boolean {
  return head.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}
