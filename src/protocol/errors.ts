export type FunctionCallErrorKind = "respond_to_model" | "fatal" | "missing_local_shell_call_id";

/** The tiny, exhaustive error enum of Codex `FunctionCallError`. */
export class FunctionCallError extends Error {
  readonly kind: FunctionCallErrorKind;

  private constructor(kind: FunctionCallErrorKind, message: string) {
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

  static isFatal(err: unknown): err is FunctionCallError {
    return err instanceof FunctionCallError && err.kind === "fatal";
  }
}
