import type { ToolCallOutcome } from "./callRecord.js";

export interface ToolCallRuntimeOptions<Ctx> {
  /** Shared calls running at once; an integer in 1..256, default 16. */
  maxConcurrency?: number;
  /** Every call's deadline unless its spec sets one, in ms; default 600_000. */
  toolTimeoutMs?: number;
  /** How long a handler that ignores its deadline keeps its lock slot, in ms; default 5_000. */
  leakGraceMs?: number;
  /** Aborting it aborts the runtime. */
  signal?: AbortSignal;
  context?: Ctx;
  /**
   * Hears each accepted call's outcome as it settles (finishing order, not call order), for
   * streaming outputs before `drain`. Called synchronously; what it throws is logged.
   */
  onOutcome?: (outcome: ToolCallOutcome) => void;
}

/**
 * What `submit` did with an item. Not a tool call: `accepted: false` and no reason. Rejected
 * (no call id, duplicate call id): `accepted: false` and the reason; it gets no output.
 * Accepted: the call id; `reason` is set when the item could not become a call and is answered
 * with that error.
 */
export interface SubmitResult {
  accepted: boolean;
  callId?: string;
  reason?: string;
}

/** The runtime's limits, checked: a RangeError names the option that is out of range. */
export function runtimeLimits<Ctx>(opts: ToolCallRuntimeOptions<Ctx>): {
  maxConcurrency: number;
  toolTimeoutMs: number;
  leakGraceMs: number;
} {
  const max = opts.maxConcurrency ?? 16;
  if (!Number.isInteger(max) || max < 1 || max > 256) {
    throw new RangeError(`maxConcurrency must be an integer in 1..256, got ${String(max)}`);
  }
  return {
    maxConcurrency: max,
    toolTimeoutMs: positive("toolTimeoutMs", opts.toolTimeoutMs, 600_000),
    leakGraceMs: positive("leakGraceMs", opts.leakGraceMs, 5_000),
  };
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0)
    throw new RangeError(`${name} must be a positive number, got ${String(value)}`);
  return value;
}
