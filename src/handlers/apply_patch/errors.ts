/**
 * A patch that parsed but cannot be applied; the message is what the model sees. `stage`
 * decides how Codex words it: `verification` (checked against the files before anything was
 * written) gets `apply_patch verification failed: `; `write` is reported as apply_patch's
 * failed run (`Exit code: 1`); `rejected` stands alone (an empty patch, an abort).
 */
export class PatchApplyError extends Error {
  readonly stage: "verification" | "write" | "rejected";

  constructor(message: string, opts: { stage?: PatchApplyError["stage"] } = {}) {
    super(message);
    this.name = "PatchApplyError";
    this.stage = opts.stage ?? "verification";
  }
}
