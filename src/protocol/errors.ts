export type FunctionCallErrorKind = "respond_to_model" | "fatal" | "missing_local_shell_call_id";

/** The tiny, exhaustive error enum of Codex `FunctionCallError`. */
export class FunctionCallError extends Error {
  readonly kind: FunctionCallErrorKind;

  protected constructor(kind: FunctionCallErrorKind, message: string) {
    super(message);
    this.name = "FunctionCallError";
    this.kind = kind;
  }

  /** An error the model sees verbatim; the turn goes on. */
  static respondToModel(message: string): FunctionCallError {
    return new FunctionCallError("respond_to_model", message);
  }

  /** Ends the turn. */
  static fatal(message: string): FunctionCallError {
    return new FunctionCallError("fatal", `Fatal error: ${message}`);
  }

  static missingLocalShellCallId(): FunctionCallError {
    return new FunctionCallError("missing_local_shell_call_id", "LocalShellCall without call_id or id");
  }

  /** Never throws, even for a proxy whose traps do: it runs on whatever a handler threw. */
  static isFatal(err: unknown): err is FunctionCallError {
    return FunctionCallError.is(err, "fatal");
  }

  /** A FunctionCallError whose message the model reads as it is (every kind but fatal). */
  static isRespondToModel(err: unknown): err is FunctionCallError {
    return FunctionCallError.is(err, "respond_to_model") || FunctionCallError.is(err, "missing_local_shell_call_id");
  }

  private static is(err: unknown, kind: FunctionCallErrorKind): boolean {
    try {
      return err instanceof FunctionCallError && err.kind === kind;
    } catch {
      return false;
    }
  }
}

/**
 * The sandbox refused a path (DESIGN section 12): a respond-to-model error that also names the
 * path, so a handler can ask to escalate before giving up.
 */
export class SandboxDenial extends FunctionCallError {
  constructor(
    /** As the model wrote it. */
    readonly path: string,
    message: string,
  ) {
    super("respond_to_model", message);
    this.name = "SandboxDenial";
  }
}
