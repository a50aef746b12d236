import { outputCallId, type ResponseInputItem } from "../protocol/index.js";
import { badParam, JsonText } from "./jsonRpc.js";

/**
 * How a sidecar session hands each output over (`initialize { outputs }`): `"stream"` sends
 * it once as a `turn/output` notification and `turn/drain` answers the call ids; `"drain"`
 * sends nothing until `turn/drain`, which answers the outputs; absent, both (DESIGN section
 * 13 as first written), so every output crosses the pipe twice.
 */
type SidecarOutputs = "stream" | "drain" | "both";

const MODES: readonly SidecarOutputs[] = ["stream", "drain", "both"];

/** The session's delivery, from `initialize`'s params; a bad value is a -32602 naming it. */
export class OutputDelivery {
  private constructor(readonly mode: SidecarOutputs) {}

  static of(params: Record<string, unknown>): OutputDelivery {
    const value = params["outputs"] ?? "both";
    if (!MODES.includes(value as SidecarOutputs))
      throw badParam("outputs", `one of ${MODES.map((m) => JSON.stringify(m)).join(", ")}`, value);
    return new OutputDelivery(value as SidecarOutputs);
  }

  /** Whether outputs go out as `turn/output` notifications. */
  get streams(): boolean {
    return this.mode !== "drain";
  }

  /** Whether `turn/drain` answers the outputs again after streaming them (so they are worth keeping as sent). */
  get drainsStreamed(): boolean {
    return this.mode === "both";
  }

  /**
   * `turn/drain`'s answer: the call ids when every output was streamed, else the outputs in the
   * calls' formats (`inFormatsText`: their JSON array's text).
   */
  reply(
    items: ResponseInputItem[],
    inFormatsText: (items: ResponseInputItem[]) => string,
  ): { callIds: string[] } | JsonText {
    return this.mode === "stream"
      ? { callIds: items.map(outputCallId) }
      : new JsonText(`{"outputs":${inFormatsText(items)}}`);
  }
}
