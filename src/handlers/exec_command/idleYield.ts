import type { FunctionToolSpec } from "../../protocol/index.js";

/** Output quiet this long ends an `until_idle` wait: a prompt or an answer has been printed. */
const IDLE_QUIET_MS = 20;

/** How a call waits for output: the whole `yield_time_ms` (Codex), or until the output goes quiet. */
export type YieldMode = "time" | "until_idle";

const YIELD_PARAM = {
  type: "string",
  enum: ["time", "until_idle"],
  description:
    `"time" (default) waits the whole yield_time_ms. "until_idle" returns once output has arrived and then been quiet ` +
    `for ${IDLE_QUIET_MS} ms (or the process exited), at the latest after yield_time_ms: for a prompt or REPL that answers at once.`,
};

/**
 * The spec with the `yield` parameter (the router option `execIdleYield`): beyond Codex, so
 * offered only on request; without it the validator refuses the parameter.
 */
export function withIdleYield(spec: FunctionToolSpec): FunctionToolSpec {
  const parameters = spec.parameters as { properties: Record<string, unknown> };
  return { ...spec, parameters: { ...spec.parameters, properties: { ...parameters.properties, yield: YIELD_PARAM } } };
}

/** The quiet time that ends this call's wait, or undefined to wait the whole yield. */
export const quietMsOf = (args: { yield?: YieldMode }): number | undefined =>
  args.yield === "until_idle" ? IDLE_QUIET_MS : undefined;
