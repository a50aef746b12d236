import { texts, type ResponseInputItem, type ToolCall } from "../protocol/index.js";
import { emitEvent, type TurnContext } from "../turn/index.js";
import { LoopDetector } from "./loops.js";
import { Quotas, type QuotaConfig, type TurnKey } from "./quotas.js";
import { estimatedTokens, outputBytes, ToolStats, type ToolUsage } from "./usage.js";

export interface SessionLedgerOptions {
  /** Tool name or `*` pattern -> calls allowed per turn and per session. Default: none. */
  quotas?: QuotaConfig;
  /** The same call with the same result this many times in a row is not run again; 0: off. Default 5. */
  loopLimit?: number;
}

/** A call as the ledger is asked about it. */
export type LedgerCall = Pick<ToolCall, "callId" | "toolName" | "payload">;

/** A function or MCP call's argument text, as the model wrote it. */
const rawArguments = (call: LedgerCall): string | undefined => {
  const payload = call.payload;
  return payload.kind === "function" ? payload.arguments : payload.kind === "mcp" ? payload.rawArguments : undefined;
};

/** A settled call as the runtime holds it (its prepared call). */
export interface SettledCall {
  readonly call: LedgerCall;
  /** The resolved tool; undefined: no such tool (not counted). */
  readonly tool: unknown;
  /** When its handler started; undefined: it never did. */
  readonly startedAt: number | undefined;
  /** What its handler ran with, while the call is being settled. */
  readonly invocation: { readonly args: unknown } | undefined;
}

/** A settled call's answer. */
export interface SettledOutcome {
  readonly toolName: string;
  readonly item: ResponseInputItem;
  readonly success: boolean;
  readonly timing: { readonly handlerMs: number };
}

/**
 * What one router's session counts (DESIGN section 18): quotas per turn and per session, the
 * model repeating one call, and each tool's usage. Dispatch asks `admit` before a call's
 * policy stage and handler and reports a policy denial; the runtime reports every answer to
 * `settled`. Nothing is kept per call: a well-formed call costs a few field updates.
 */
export class SessionLedger {
  private readonly quotas: Quotas;
  private readonly loops: LoopDetector;
  private readonly tools = new Map<string, ToolStats>();
  /** Loop detection or a quota is on: without either, a call with plain arguments need not be admitted. */
  readonly admits: boolean;
  /** The tool `stats` found last, and its stats. */
  private lastTool: string | undefined;
  private lastStats: ToolStats | undefined;

  constructor(opts: SessionLedgerOptions = {}) {
    const limit = opts.loopLimit ?? 5;
    if (!Number.isInteger(limit) || limit < 0) {
      throw new TypeError(`loopLimit must be a non-negative integer (0: off), got ${String(limit)}`);
    }
    this.quotas = new Quotas(opts.quotas);
    this.loops = new LoopDetector(limit);
    this.admits = this.loops.on || this.quotas.any;
  }

  /**
   * Before the call's policy stage and handler: the text that answers it instead (a quota is
   * spent, or the model repeats a call that keeps giving the same result), else undefined and
   * the call counts toward its quotas in the turn `turnKey`. `repaired`: its arguments were repaired.
   */
  admit(call: LedgerCall, args: unknown, turn: TurnContext, turnKey: TurnKey, repaired: boolean): string | undefined {
    const { callId, toolName } = call;
    if (repaired) this.stats(toolName).repairs++;
    const repeats = this.loops.on ? this.loops.repeats(toolName, rawArguments(call), args) : undefined;
    if (repeats !== undefined) {
      turn.logger.warn({ callId, toolName, count: repeats }, "tool call loop");
      emitEvent(turn, { type: "tool_call_loop", callId, toolName, count: repeats });
      this.stats(toolName).denials++;
      return texts.loopDetected(repeats);
    }
    const refusal = this.quotas.admit(toolName, turnKey);
    if (refusal !== undefined) this.stats(toolName).denials++;
    return refusal;
  }

  /** The policy stage refused the call. */
  denied(call: LedgerCall): void {
    this.stats(call.toolName).denials++;
  }

  /**
   * A resumed turn: the tools of the calls its journal says ran (and that will not run again)
   * count toward its quotas, unless this ledger counted the turn itself.
   */
  resumed(turnId: string, ran: readonly string[]): void {
    this.quotas.resumed(turnId, ran);
  }

  /**
   * Every answered call, once: counted for its tool; returns the output's estimated tokens.
   * `record`: its prepared call; undefined for an item that never became a call (not counted).
   */
  settled(record: SettledCall | undefined, outcome: SettledOutcome): number {
    const bytes = outputBytes(outcome.item);
    const tokens = estimatedTokens(bytes);
    if (record?.tool === undefined) return tokens;
    const stats = this.stats(outcome.toolName);
    stats.calls++;
    if (outcome.success) stats.successes++;
    stats.bytes += bytes;
    stats.tokens += tokens;
    if (record.startedAt !== undefined) stats.handler(outcome.timing.handlerMs);
    if (record.invocation && this.loops.on) {
      this.loops.ran(outcome.toolName, rawArguments(record.call), record.invocation.args, outcome.item.output);
    }
    return tokens;
  }

  /** Per tool, the tools called so far in the session. */
  usage(): Record<string, ToolUsage> {
    return Object.fromEntries([...this.tools].map(([name, stats]) => [name, stats.usage()]));
  }

  private stats(toolName: string): ToolStats {
    // A turn mostly calls one tool after another of the same name: no map lookup then.
    if (toolName === this.lastTool && this.lastStats) return this.lastStats;
    let stats = this.tools.get(toolName);
    if (!stats) {
      stats = new ToolStats();
      this.tools.set(toolName, stats);
    }
    this.lastTool = toolName;
    this.lastStats = stats;
    return stats;
  }
}
