/** Monotonic milliseconds for timings. */
export const now = (): number => performance.now();

/** Longest delay `setTimeout` honours; a larger one fires at once (Node clamps it to 1 ms). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** `ms` clamped to what `setTimeout` honours. */
export const timerDelay = (ms: number): number => Math.min(Math.max(ms, 0), MAX_TIMER_MS);
