export type FunctionCallErrorKind = "respond_to_model" | "fatal" | "missing_local_shell_call_id";

/**
 * Marks our errors across copies of this package: a `--plugin` module imports
 * `toolcall-runtime` from `dist/` while the command runs its own bundled copy, and a class
 * check alone would take the plugin's `respondToModel` for a handler crash.
 */
const BRAND = Symbol.for("toolcall-runtime.FunctionCallError");

/** The tiny, exhaustive error enum of Codex `FunctionCallError`. */
export class FunctionCallError extends Error {
  readonly kind: FunctionCallErrorKind;

  /**
   * `instanceof FunctionCallError` by the brand, so an error from another copy of the package
   * counts; subclasses (`SandboxDenial`) keep the ordinary check.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (this !== FunctionCallError) return Function.prototype[Symbol.hasInstance].call(this, value);
    try {
      return typeof value === "object" && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
    } catch {
      return false;
    }
  }

  protected constructor(kind: FunctionCallErrorKind, message: string) {
    super(message);
    this.name = "FunctionCallError";
    this.kind = kind;
    Object.defineProperty(this, BRAND, { value: true });
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
