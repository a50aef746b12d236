import type { ResponseInputItem } from "../protocol/index.js";
import type { TurnContext } from "../turn/index.js";
import { dispatch } from "./pipeline.js";
import type { DispatchHost, PreparedCall } from "./preparedCall.js";

/** `router.dispatch`'s options: the turn the call runs in, and a signal that aborts it. */
export interface DispatchOptions<Ctx> {
  turn: TurnContext;
  signal: AbortSignal;
  context?: Ctx;
}

export interface DispatchResult {
  item: ResponseInputItem;
  success: boolean;
  timing: { gateWaitMs: number; handlerMs: number };
}

/**
 * One prepared call through the pipeline as a promise, outside any runtime (`router.dispatch`):
 * no lock, no deadline; `opts.signal` aborts it; counted in the router's usage. Rejects only
 * with a `Fatal` error.
 */
export function dispatchAwaited<Ctx>(prepared: PreparedCall<Ctx>, opts: DispatchOptions<Ctx>): Promise<DispatchResult> {
  const { signal } = opts;
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      prepared.abort(signal.reason);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    const host: DispatchHost<Ctx, undefined> = {
      turn: opts.turn,
      context: opts.context as Ctx,
      announcesBegin: false,
      settled: (_, item, success) => {
        signal.removeEventListener("abort", onAbort);
        const timing = { gateWaitMs: prepared.gateWaitMs, handlerMs: prepared.handlerMs };
        // Usage and loops hear it as they hear a runtime's answers (DESIGN section 18).
        prepared.scope.ledger.settled(prepared, { toolName: prepared.call.toolName, item, success, timing });
        resolve({ item, success, timing });
      },
      failed: (_, err) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
      // No runtime to end: the asking call is answered, as before.
      abortTurn: () => undefined,
    };
    dispatch(prepared, host, undefined);
  });
}
