/** The size of the chunks `readLines` asks for. */
export const READ_CHUNK_BYTES = 64 * 1024;
/** Bytes sniffed for a NUL, the way git and ripgrep tell binary files apart. */
const BINARY_SNIFF_BYTES = 8 * 1024;

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

/** Up to `length` bytes of a file from `position`: fewer only at its end. */
export type ReadChunk = (position: number, length: number) => Promise<Buffer>;

/**
 * Streams a file line by line with bounded memory: a chunk plus one capped line, however
 * large the file or its lines. Returns the number of lines seen (all of them unless stopped).
 */
export async function readLines(read: ReadChunk, opts: ReadLinesOptions): Promise<number> {
  let position = 0;
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
    const data = await read(position, READ_CHUNK_BYTES);
    if (data.length === 0) break;
    position += data.length;
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
    if (data.length < READ_CHUNK_BYTES) break; // a short chunk is the end: no call just to learn it
  }
  if (pending) emit();
  return number;
}

/** True when the sniffed bytes contain a NUL. */
export function looksBinary(head: Buffer): boolean {
  return head.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}
