import { texts } from "../protocol/index.js";
import { errorText } from "../util/index.js";
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
  /** The turn's id in its journal (DESIGN section 17); default a new UUID. */
  turnId?: string;
}

/**
 * What `submit` did with an item. Not a tool call: `accepted: false` and no reason. Rejected
 * (no call id, a known call id with another call): `accepted: false` and the reason; it gets no
 * output. The same call again under its id is accepted and answered with the first output.
 * Accepted: the call id; `reason` is set when the item could not become a call and is answered
 * with that error.
 */
export interface SubmitResult {
  accepted: boolean;
  callId?: string;
  reason?: string;
}

/** The runtime's limits, checked. */
export interface RuntimeLimits {
  maxConcurrency: number;
  toolTimeoutMs: number;
  leakGraceMs: number;
}

/** The runtime's limits, checked: a RangeError names the option that is out of range. */
export function runtimeLimits<Ctx>(opts: ToolCallRuntimeOptions<Ctx>): RuntimeLimits {
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

/** The turn id the options give (checked), or undefined: the runtime makes one when first asked. */
export function givenTurnId<Ctx>(opts: ToolCallRuntimeOptions<Ctx>): string | undefined {
  const id = opts.turnId;
  if (id === undefined) return undefined;
  if (typeof id !== "string" || id === "")
    throw new TypeError(`turnId must be a non-empty string, got ${JSON.stringify(id)}`);
  return id;
}

/** An abort signal's reason as the text aborted calls answer with. */
export function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (typeof reason === "string") return reason;
  return reason instanceof Error ? (errorText(reason) ?? texts.abortedByUser) : texts.abortedByUser;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0)
    throw new RangeError(`${name} must be a positive number, got ${String(value)}`);
  return value;
}
