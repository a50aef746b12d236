import { createHash } from "node:crypto";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";
import { texts, type ApprovalDecision, type CustomToolCallItem, type FunctionCallItem } from "../protocol/index.js";
import type { ToolRouter } from "../router/index.js";
import type { ToolCallOutcome } from "../runtime/index.js";
import {
  readTurn,
  resumeStep,
  type CallJournal,
  type JournalEvent,
  type JournalRecord,
  type TurnJournal,
} from "../turn/index.js";
import { errorText } from "../util/index.js";
import { failure, resultOf } from "./mcpResult.js";

/**
 * The `_meta` keys a client names a `tools/call` by, so a retried request is known as the same
 * call: ours, then the tool-use id Claude Code sends with every call.
 */
const CALL_ID_META_KEYS = ["toolcall/callId", "claudecode/toolUseId"] as const;

const MAX_KEY_LENGTH = 256;

/** The client's id for a call in `_meta`; undefined when it names none; a TypeError for a bad one. */
export function clientCallId(meta: unknown): string | undefined {
  if (typeof meta !== "object" || meta === null) return undefined;
  for (const key of CALL_ID_META_KEYS) {
    const value = (meta as Record<string, unknown>)[key];
    if (value === undefined) continue;
    if (typeof value !== "string" || value === "" || value.length > MAX_KEY_LENGTH)
      throw new TypeError(`_meta["${key}"] must be a string of 1-${MAX_KEY_LENGTH} characters`);
    return value;
  }
  return undefined;
}

type McpItem = FunctionCallItem | CustomToolCallItem;

/** Records the running call's outcome; settles once it is durable (or the journal failed, logged). */
export type RecordOutcome = (outcome: ToolCallOutcome) => Promise<void>;

/**
 * `serve-mcp`'s journal (DESIGN section 17): a call the client names (`_meta`, see
 * `CALL_ID_META_KEYS`) is a journaled turn of one call, `{dir}/mcp_{hash of the id}.jsonl`, so
 * a retried `tools/call` never runs twice, whether the first is still running, finished, or
 * was lost with a server that died: a recorded output is answered again; a call that started
 * and may have taken effect (mutating, not idempotent) is answered `interrupted`; one that
 * never started runs. The service's one runtime still runs every call (one lock), and tells
 * this journal its calls' starts and approvals, as a resumed runtime tells its own.
 */
export class McpCallJournal implements CallJournal {
  /** Journaled calls in this process now, by call id: a retry meanwhile waits for the first. */
  private readonly running = new Map<string, { item: McpItem; result: Promise<CallToolResult> }>();
  /** Tools of the journaled calls running now (calls not named by the client are not journaled). */
  private readonly tools = new Map<string, string>();
  /** A person's answers the journal holds for calls that run now: not asked again. */
  private readonly decisions = new Map<string, ApprovalDecision>();
  /** Its calls run in the service's own process: nothing it holds was lost with another. */
  readonly resumed = false;

  constructor(
    private readonly journal: TurnJournal,
    private readonly router: Pick<ToolRouter, "toolIsIdempotent" | "toolSupportsParallel">,
    private readonly logger: Logger,
  ) {}

  /** The call id (and journal turn) of the client's id: a hash, so any text names a safe file. */
  callIdOf(key: string): string {
    return `mcp_${createHash("sha256").update(key).digest("hex").slice(0, 40)}`;
  }

  /**
   * Answers `item`, which the client named `key` (its `call_id` is `callIdOf(key)`), from the
   * journal, or runs it once through `run`.
   */
  once(key: string, item: McpItem, run: (record: RecordOutcome) => Promise<CallToolResult>): Promise<CallToolResult> {
    const callId = item.call_id;
    const first = this.running.get(callId);
    if (first) return sameItem(first.item, item) ? first.result : Promise.resolve(failure(texts.duplicateCallId(key)));
    const result = this.first(key, item, run).finally(() => {
      this.running.delete(callId);
    });
    this.running.set(callId, { item, result });
    return result;
  }

  private async first(
    key: string,
    item: McpItem,
    run: (record: RecordOutcome) => Promise<CallToolResult>,
  ): Promise<CallToolResult> {
    const { call_id: callId, name } = item;
    const records: JournalRecord[] = [];
    try {
      for await (const record of this.journal.load(callId)) records.push(record);
    } catch (err) {
      return failure(`the journal cannot be read, so ${name} was not run: ${errorText(err) ?? "unknown error"}`);
    }
    const known = readTurn(records).calls[0];
    if (known) {
      if (!known.redacted && !sameItem(known.item as McpItem, item)) return failure(texts.duplicateCallId(key));
      const step = resumeStep(known);
      if (step.kind === "answer") return resultOf(step.item, step.success);
      if (step.kind === "interrupted") return failure(texts.interrupted(known.tool));
      if (known.approval) this.decisions.set(callId, known.approval);
    } else {
      this.quietly(
        this.write(callId, {
          type: "accepted",
          callId,
          tool: name,
          item,
          parallel: this.router.toolSupportsParallel(name),
        }),
      );
    }
    this.tools.set(callId, name);
    let ended = false;
    try {
      return await run((outcome) => {
        ended = true;
        return this.settled(outcome);
      });
    } finally {
      this.tools.delete(callId);
      this.decisions.delete(callId);
      // No outcome (a fatal error): the turn still ends, so its file is closed.
      if (!ended) this.quietly(this.write(callId, { type: "turn_end" }));
    }
  }

  /**
   * The outcome, durable before the client is sent it; the call's turn ends. An aborted call's
   * output is not kept: the request that was told it is gone, and a retry is judged by the
   * call's start (run again when that is safe, else `interrupted`).
   */
  private async settled(outcome: ToolCallOutcome): Promise<void> {
    const { callId, item, success, aborted } = outcome;
    if (!aborted) this.quietly(this.write(callId, { type: "outcome", callId, item, success, aborted }));
    try {
      await this.write(callId, { type: "turn_end" });
    } catch (err) {
      this.failed(err, callId);
    }
  }

  started(callId: string, mutating: boolean): Promise<void> | undefined {
    const tool = this.tools.get(callId);
    if (tool === undefined) return undefined;
    const idempotent = this.router.toolIsIdempotent(tool);
    const written = this.write(callId, { type: "started", callId, mutating, idempotent });
    // It may not run twice: it starts only once a retry can know it may have taken effect.
    if (mutating && !idempotent) return written;
    this.quietly(written);
    return undefined;
  }

  approvalRequested(callId: string): void {
    if (this.tools.has(callId)) this.quietly(this.write(callId, { type: "approval_requested", callId }));
  }

  approvalDecided(callId: string, decision: ApprovalDecision): void {
    if (this.tools.has(callId)) this.quietly(this.write(callId, { type: "approval_decided", callId, decision }));
  }

  recordedApproval(callId: string): ApprovalDecision | undefined {
    const decision = this.decisions.get(callId);
    this.decisions.delete(callId);
    return decision;
  }

  /** Appends to the call's own turn; a rejected promise when the journal failed. Never throws. */
  private async write(callId: string, event: JournalEvent): Promise<void> {
    await this.journal.append({ turnId: callId, ...event });
  }

  private quietly(written: Promise<void>): void {
    written.catch((err: unknown) => {
      this.failed(err);
    });
  }

  private failed(err: unknown, callId?: string): void {
    this.logger.error({ err: errorText(err), callId }, "the MCP service's journal failed");
  }
}

/** The same tool with the same arguments: a retry, not another call under a reused id. */
function sameItem(a: McpItem, b: McpItem): boolean {
  if (a.type !== b.type || a.name !== b.name) return false;
  return a.type === "function_call"
    ? a.arguments === (b as FunctionCallItem).arguments
    : a.input === (b as CustomToolCallItem).input;
}
