import type { ResponseInputItem } from "../protocol/index.js";

/** `drain()` rejects with this when a call ended the turn with a fatal error. */
export class FatalToolCallError extends Error {
  constructor(
    readonly callId: string,
    message: string,
    /** The other calls' outputs, in submission order. */
    readonly outputs: ResponseInputItem[],
    /** The fatal call's own output (its message), to place among the others. */
    readonly item: ResponseInputItem,
  ) {
    super(message);
    this.name = "FatalToolCallError";
  }
}
