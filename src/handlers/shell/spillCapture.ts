import { budgetBytes, type SpillStore, type SpillWriter, type TruncationPolicy } from "../../turn/index.js";
import type { HeadTailBuffer } from "./outputBuffer.js";

/**
 * A bounded capture that, with a spill store, also keeps the whole output on disk once it no
 * longer fits in memory: at that moment the capture still holds every byte, so the file starts
 * with them and takes each later chunk as it arrives. Memory stays bounded either way.
 */
export class SpillingCapture {
  private writer: SpillWriter | undefined;
  private failed = false;

  constructor(
    readonly capture: HeadTailBuffer,
    private readonly spill: SpillStore,
    private readonly callId: string,
  ) {}

  append(chunk: Buffer): void {
    const { capture } = this;
    if (!this.writer && !this.failed && capture.totalBytes + chunk.length > capture.headCap + capture.tailCap) {
      try {
        const { head, tail } = capture.snapshot();
        this.writer = this.spill.open(this.callId, Buffer.concat([head, tail]));
      } catch {
        this.failed = true; // no spill directory: the output is cut as without one
      }
    }
    this.writer?.write(chunk);
    capture.append(chunk);
  }

  /** The file holding the whole output, when the model will see it cut (`policy`'s budget). */
  async finish(policy: TruncationPolicy, prefixBytes = 0): Promise<string | undefined> {
    if (this.writer) {
      await this.writer.end();
      return this.writer.path;
    }
    if (this.failed || this.capture.totalBytes + prefixBytes <= budgetBytes(policy)) return undefined;
    // Cut, yet all of it is still in memory.
    const { head, tail } = this.capture.snapshot();
    try {
      return await this.spill.keep(this.callId, Buffer.concat([head, tail]).toString("utf8"));
    } catch {
      return undefined;
    }
  }
}
