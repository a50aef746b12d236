/** Opaque subscription token handed out by `ReadinessFlag.subscribe()`. */
export class ReadinessToken {
  // A private field makes the type nominal: plain objects cannot pass as tokens.
  readonly #id: number;
  constructor(id: number) {
    this.#id = id;
  }
  toString(): string {
    return `ReadinessToken(${this.#id})`;
  }
}

export class FlagAlreadyReadyError extends Error {
  constructor() {
    super("Flag is already ready. Impossible to subscribe");
    this.name = "FlagAlreadyReadyError";
  }
}

/**
 * One-shot readiness gate with token-based authorisation (Codex `codex-utils-readiness`).
 * Subscribers hold the gate closed until one of them marks it ready; a flag nobody
 * subscribed to latches to ready the first time it is asked.
 */
export class ReadinessFlag {
  private ready = false;
  private nextId = 1;
  private readonly tokens = new Set<ReadinessToken>();
  private waiters: Array<() => void> = [];

  /** Throws `FlagAlreadyReadyError` once the flag is ready. */
  subscribe(): ReadinessToken {
    if (this.ready) throw new FlagAlreadyReadyError();
    const token = new ReadinessToken(this.nextId++);
    this.tokens.add(token);
    return token;
  }

  /** True exactly once, for a live token of this flag; used, unknown or foreign tokens: false. */
  markReady(token: ReadinessToken): boolean {
    if (this.ready) return false;
    if (!this.tokens.delete(token)) return false;
    this.open();
    return true;
  }

  isReady(): boolean {
    if (this.ready) return true;
    if (this.tokens.size === 0) this.open();
    return this.ready;
  }

  /** Resolves when the flag is ready; rejects with the signal's reason when it aborts first. */
  waitReady(signal?: AbortSignal): Promise<void> {
    if (this.isReady()) return Promise.resolve();
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        this.waiters = this.waiters.filter((w) => w !== wake);
        reject(signal?.reason);
      };
      const wake = (): void => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      this.waiters.push(wake);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  private open(): void {
    this.ready = true;
    this.tokens.clear();
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
