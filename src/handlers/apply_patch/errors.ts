/** A patch that parsed but cannot be applied; the message is what the model sees. */
export class PatchApplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PatchApplyError";
  }
}
