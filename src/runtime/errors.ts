import type { ResponseInputItem } from "../protocol/items.js";

/** `drain()` rejects with this when a call ended the turn with a fatal error. */
export class FatalToolCallError extends Error {
  constructor(
    readonly callId: string,
    message: string,
    /** The other calls' outputs, in submission order. */
    readonly outputs: ResponseInputItem[],
  ) {
    super(message);
    this.name = "FatalToolCallError";
  }
}
