/** How much of a thrown plain object's JSON the model gets. */
const MAX_JSON_CHARS = 200;

/**
 * The text of anything thrown, for logs and model outputs. Never throws: a value whose
 * `message` getter, `toString` or proxy traps throw gets `undefined`, so the caller falls
 * back to its own words. Errors give their message; plain objects their JSON, cut short,
 * rather than `[object Object]`.
 */
export function errorText(err: unknown): string | undefined {
  try {
    if (err instanceof Error) {
      const message: unknown = err.message;
      return typeof message === "string" ? message : undefined;
    }
    if (typeof err === "string") return err;
    if (err === null || err === undefined) return undefined;
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- numbers, symbols, bigints: their own text
    if (typeof err !== "object" && typeof err !== "function") return String(err);
    const message: unknown = (err as { message?: unknown }).message;
    if (typeof message === "string") return message;
    if (Object.getPrototypeOf(err) === Object.prototype || Array.isArray(err)) {
      const json = JSON.stringify(err);
      if (json === undefined) return undefined;
      return json.length > MAX_JSON_CHARS ? `${json.slice(0, MAX_JSON_CHARS)}…` : json;
    }
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a class instance: its own toString, if any
    const text = String(err);
    return typeof text === "string" ? text : undefined;
  } catch {
    return undefined;
  }
}

/** `errorText`, or `fallback` when the value has no usable text. */
export function errorMessage(err: unknown, fallback = "unknown error"): string {
  return errorText(err) ?? fallback;
}

/**
 * `errorMessage` with the cause a wrapper hides (`fetch failed` is all undici says; its cause
 * says `connect ECONNREFUSED 127.0.0.1:9`).
 */
export function errorWithCause(err: unknown): string {
  const message = errorMessage(err);
  const cause: unknown = err instanceof Error ? err.cause : undefined;
  // Node's connect error for a name with several addresses is an AggregateError with no message.
  const inner: unknown = cause instanceof AggregateError && cause.message === "" ? (cause.errors[0] as unknown) : cause;
  const text = inner instanceof Error ? inner.message || (inner as NodeJS.ErrnoException).code : undefined;
  return text && !message.includes(text) ? `${message} (${text})` : message;
}
