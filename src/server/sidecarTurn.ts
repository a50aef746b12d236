import type { WireFormat } from "../adapters/index.js";
import { outputCallId, type ResponseInputItem } from "../protocol/index.js";
import type { ToolCallOutcome, ToolCallRuntime } from "../runtime/index.js";
import { JsonText, type JsonRpcId } from "./jsonRpc.js";
import { outputInFormat } from "./sidecarFormat.js";

/** An output as it was streamed: the item and its JSON text in the drain's list (see `SidecarTurn.kept`). */
interface Streamed {
  item: ResponseInputItem;
  text: string;
}

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
  /**
   * With outputs streamed and then drained (the default), each streamed output's text, so the
   * drain's answer reuses it instead of formatting and serializing every output a second time.
   */
  private readonly kept: Map<string, Streamed> | undefined;
  /** `{"turnId":...,"callId":` once per turn: the head of every `turn/output`'s params. */
  private readonly paramsHead: string;

  /** `keep`: the drain answers the streamed outputs again (see `kept`). */
  constructor(
    readonly id: string,
    keep = false,
  ) {
    this.kept = keep ? new Map() : undefined;
    this.paramsHead = `{"turnId":${JSON.stringify(id)},"callId":`;
  }

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

  /**
   * Sends the outputs whose every earlier call's went out, in call order (not those the client
   * has): each `turn/output`'s params as JSON text, serialized once.
   */
  flush(send: (params: JsonText) => void): void {
    for (let id = this.order[this.next]; id !== undefined; id = this.order[this.next]) {
      const outcome = this.settled.get(id);
      if (!outcome) return;
      this.settled.delete(id);
      this.next++;
      if (this.received.has(id)) continue;
      const format = this.formats.get(id);
      const value = outputInFormat(outcome, format);
      // A Chat output with images is two messages: streamed as a list, drained as two entries.
      const list = format === "chat" && Array.isArray(value);
      const text = list ? value.map((v) => JSON.stringify(v)).join(",") : JSON.stringify(value);
      this.kept?.set(id, { item: outcome.item, text });
      send(new JsonText(`${this.paramsHead}${JSON.stringify(id)},"item":${list ? `[${text}]` : text}}`));
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

  /** `inFormats` as a JSON array's text: an output streamed as it is drained is not serialized again. */
  inFormatsText(outputs: readonly ResponseInputItem[]): string {
    const kept = this.kept;
    if (!kept) return JSON.stringify(this.inFormats(outputs));
    const parts = outputs.map((o) => {
      const sent = kept.get(outputCallId(o));
      if (sent?.item === o) return sent.text;
      return this.inFormats([o])
        .map((v) => JSON.stringify(v))
        .join(",");
    });
    return `[${parts.join(",")}]`;
  }
}
