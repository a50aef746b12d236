/** `{s.s}` in model-facing texts: seconds with one decimal, always shown (`2.0`). */
export const formatSeconds = (ms: number): string => (ms / 1000).toFixed(1);

/** Seconds as short as they are exact, to the millisecond (`2`, `2.5`, `0.25`). */
export const formatSecondsExact = (ms: number): string => String(Math.round(ms) / 1000);
