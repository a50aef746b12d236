import { budgetBytes, countChars, countNewlines, type CapturedBytes, type TruncationPolicy } from "../../turn/index.js";

/**
 * Bounded capture of a byte stream: keeps the first `headCap` and the last `tailCap` bytes and
 * counts what falls between, so a command printing gigabytes costs at most `headCap + tailCap`
 * bytes of memory. Retained bytes are copies: a slice would pin the stream's whole chunk.
 */
export class HeadTailBuffer {
  private readonly headChunks: Buffer[] = [];
  private headLen = 0;
  private tailChunks: Buffer[] = [];
  private tailLen = 0;
  private omittedBytes = 0;
  private omittedChars = 0;
  private newlines = 0;
  private lastByte: number | undefined;
  private total = 0;
  private peak = 0;

  constructor(
    readonly headCap: number,
    readonly tailCap: number,
  ) {
    if (!Number.isInteger(headCap) || headCap < 0 || !Number.isInteger(tailCap) || tailCap < 0) {
      throw new RangeError(`HeadTailBuffer caps must be non-negative integers, got ${headCap} and ${tailCap}`);
    }
  }

  append(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.total += chunk.length;
    this.newlines += countNewlines(chunk);
    this.lastByte = chunk[chunk.length - 1];
    let rest = chunk;
    if (this.headLen < this.headCap) {
      const take = Math.min(this.headCap - this.headLen, rest.length);
      this.headChunks.push(Buffer.from(rest.subarray(0, take)));
      this.headLen += take;
      rest = rest.subarray(take);
    }
    if (rest.length > 0) this.appendTail(rest);
    this.peak = Math.max(this.peak, this.headLen + this.tailLen);
  }

  private appendTail(chunk: Buffer): void {
    // Only the last `tailCap` bytes of a big chunk can survive: skip the rest without copying.
    if (chunk.length > this.tailCap) {
      const skip = chunk.length - this.tailCap;
      this.drop(chunk, skip);
      chunk = chunk.subarray(skip);
    }
    if (chunk.length === 0) return;
    this.tailChunks.push(Buffer.from(chunk));
    this.tailLen += chunk.length;
    let excess = this.tailLen - this.tailCap;
    while (excess > 0) {
      const first = this.tailChunks[0] as Buffer;
      if (first.length <= excess) {
        this.drop(first, first.length);
        this.tailChunks.shift();
        this.tailLen -= first.length;
        excess -= first.length;
      } else {
        this.drop(first, excess);
        this.tailChunks[0] = Buffer.from(first.subarray(excess));
        this.tailLen -= excess;
        excess = 0;
      }
    }
  }

  private drop(buf: Buffer, bytes: number): void {
    this.omittedBytes += bytes;
    this.omittedChars += countChars(buf, 0, bytes);
  }

  /** Bytes appended so far, dropped ones included. */
  get totalBytes(): number {
    return this.total;
  }

  /** Bytes held now. */
  get retainedBytes(): number {
    return this.headLen + this.tailLen;
  }

  /** Most bytes ever held at once (after each append). */
  get peakRetainedBytes(): number {
    return this.peak;
  }

  snapshot(): CapturedBytes {
    if (this.tailChunks.length > 1) this.tailChunks = [Buffer.concat(this.tailChunks)];
    return {
      head: Buffer.concat(this.headChunks),
      tail: this.tailChunks[0] ?? Buffer.alloc(0),
      omittedBytes: this.omittedBytes,
      omittedChars: this.omittedChars,
      newlines: this.newlines,
      lastByte: this.lastByte,
    };
  }
}

/** Each end of the capture holds at most this much, whatever the truncation budget. */
export const MAX_CAPTURE_SIDE_BYTES = 1024 * 1024;

/** Sized so that the capture holds what the policy shows of the head and tail, plus a char. */
export function captureFor(policy: TruncationPolicy): HeadTailBuffer {
  const side = Math.min(MAX_CAPTURE_SIDE_BYTES, Math.ceil(budgetBytes(policy) / 2) + 4);
  return new HeadTailBuffer(side, side);
}
