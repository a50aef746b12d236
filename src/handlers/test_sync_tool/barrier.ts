/** A rendezvous of `participants` calls; arrivals that give up are withdrawn. */
export class Barrier {
  private waiting: Array<() => void> = [];

  constructor(readonly participants: number) {}

  get arrived(): number {
    return this.waiting.length;
  }

  /**
   * Resolves `true` when the last participant arrives, `false` when `signal` aborts first
   * (the arrival is then withdrawn, so a later call cannot complete the barrier with it).
   */
  wait(signal: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      if (signal.aborted) {
        resolve(false);
        return;
      }
      const release = (): void => {
        signal.removeEventListener("abort", onAbort);
        resolve(true);
      };
      const onAbort = (): void => {
        this.waiting = this.waiting.filter((r) => r !== release);
        resolve(false);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(release);
      if (this.waiting.length >= this.participants) {
        const released = this.waiting;
        this.waiting = [];
        for (const r of released) r();
      }
    });
  }
}
