import type { WireFormat } from "../adapters/index.js";
import { outputCallId, type ResponseInputItem } from "../protocol/index.js";
import type { ToolCallOutcome, ToolCallRuntime } from "../runtime/index.js";
import type { JsonRpcId } from "./jsonRpc.js";
import { outputInFormat } from "./sidecarFormat.js";

/**
 * One sidecar turn: its runtime and the outputs not yet streamed. Outputs go out in call order,
 * each once: a settled call waits for every earlier one's.
 */
export class SidecarTurn {
  private readonly order: string[] = [];
  /** The ids in `order`: a call sent again (replayed) does not wait for a second output. */
  private readonly known = new Set<string>();
  /** Outputs the client already has (`turn/resume { received }`): not streamed again. */
  received: ReadonlySet<string> = new Set();
  /** Settled outcomes waiting for every earlier call's. */
  private readonly settled = new Map<string, ToolCallOutcome>();
  private next = 0;
  draining = false;
  /** Our requests to the client for this turn's calls, not answered yet. */
  readonly requests = new Set<JsonRpcId>();
  /** Each call's format, for its output (Responses when absent). */
  readonly formats = new Map<string, WireFormat>();
  runtime!: ToolCallRuntime;

  constructor(readonly id: string) {}

  /** Calls accepted in this order; those already known are not waited for again. False: none new. */
  add(callIds: string | readonly string[]): boolean {
    if (typeof callIds === "string") return this.addOne(callIds);
    let added = false;
    for (const id of callIds) added = this.addOne(id) || added;
    return added;
  }

  private addOne(id: string): boolean {
    if (this.known.has(id)) return false;
    this.known.add(id);
    this.order.push(id);
    return true;
  }

  /** Whether the next output in call order has settled (a flush would send something). */
  ready(): boolean {
    const id = this.order[this.next];
    return id !== undefined && this.settled.has(id);
  }

  /** A call's outcome, as it settled (any order). */
  settle(outcome: ToolCallOutcome): void {
    this.settled.set(outcome.callId, outcome);
  }

  /** Sends the outputs whose every earlier call's went out, in call order (not those the client has). */
  flush(send: (callId: string, item: unknown) => void): void {
    for (let id = this.order[this.next]; id !== undefined; id = this.order[this.next]) {
      const outcome = this.settled.get(id);
      if (!outcome) return;
      this.settled.delete(id);
      this.next++;
      if (!this.received.has(id)) send(id, outputInFormat(outcome, this.formats.get(id)));
    }
  }

  /** Every call's output in call order: with a fatal error, the outputs it left and its own. */
  inOrder(outputs: readonly ResponseInputItem[]): ResponseInputItem[] {
    const byId = new Map(outputs.map((o) => [outputCallId(o), o]));
    return this.order.flatMap((id) => byId.get(id) ?? []);
  }

  /** Outputs in their calls' formats, in order (a Chat output with images is two messages). */
  inFormats(outputs: readonly ResponseInputItem[]): unknown[] {
    return outputs.flatMap((o) => {
      const format = this.formats.get(outputCallId(o));
      const value = outputInFormat(o, format);
      return format === "chat" && Array.isArray(value) ? (value as unknown[]) : [value];
    });
  }
}
