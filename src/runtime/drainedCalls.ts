import type { PayloadKind, ResponseInputItem, ToolPayload } from "../protocol/index.js";
import type { ToolCallOutcome } from "./callRecord.js";

/**
 * A call a drain has taken, as a repeated call id sees it: what it is compared with and
 * answered from. Made only when an id comes again (`DrainedCalls.at`), not per call.
 */
export class DrainedCall {
  constructor(
    readonly callId: string,
    readonly toolName: string,
    /** A function call's argument text, else the payload. */
    private readonly compared: string | ToolPayload,
    readonly item: ResponseInputItem,
    readonly success: boolean,
    readonly aborted: boolean,
  ) {}

  get payloadKind(): PayloadKind {
    const compared = this.compared;
    return typeof compared === "string" ? "function" : compared.kind;
  }

  /** The same payload as this call's (compared as JSON). */
  samePayload(payload: ToolPayload): boolean {
    const compared = this.compared;
    if (typeof compared === "string") return payload.kind === "function" && payload.arguments === compared;
    return JSON.stringify(compared) === JSON.stringify(payload);
  }
}

const SUCCESS = 1;
const ABORTED = 2;

/**
 * What a turn keeps of each call its drains took, for a repeated call id: five slots per call in
 * parallel arrays (no object per call, no hash operation: a long turn keeps one per call, and a
 * map entry plus an object each cost sequential submit + drain a fifth of its time). Looked up
 * by position; the id -> position index is the runtime's, built only once an id repeats.
 */
export class DrainedCalls {
  private readonly ids: string[] = [];
  private readonly tools: string[] = [];
  /** A function call's argument text (its payload object is not kept), else the payload. */
  private readonly compared: Array<string | ToolPayload> = [];
  private readonly items: ResponseInputItem[] = [];
  private readonly flags: number[] = [];

  /** Keeps a drained call with a prepared call (the one its id was accepted with); returns its position. */
  add(payload: ToolPayload, outcome: ToolCallOutcome): number {
    this.ids.push(outcome.callId);
    this.tools.push(outcome.toolName);
    this.compared.push(payload.kind === "function" ? payload.arguments : payload);
    this.items.push(outcome.item);
    return this.flags.push((outcome.success ? SUCCESS : 0) | (outcome.aborted ? ABORTED : 0)) - 1;
  }

  get length(): number {
    return this.ids.length;
  }

  idAt(at: number): string {
    return this.ids[at] as string;
  }

  at(at: number): DrainedCall {
    const flags = this.flags[at] as number;
    return new DrainedCall(
      this.ids[at] as string,
      this.tools[at] as string,
      this.compared[at] as string | ToolPayload,
      this.items[at] as ResponseInputItem,
      (flags & SUCCESS) !== 0,
      (flags & ABORTED) !== 0,
    );
  }
}
