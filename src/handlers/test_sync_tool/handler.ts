import { setTimeout as sleep } from "node:timers/promises";
import { FunctionCallError, type ToolOutput, type FunctionToolSpec } from "../../protocol/index.js";
import type { ToolHandler, ToolInvocation, ToolFactory } from "../../registry/index.js";
import { deadline } from "../../turn/index.js";
import { Barrier } from "./barrier.js";

const DEFAULT_BARRIER_TIMEOUT_MS = 1000;

/** Codex 0.171's schema and descriptions, verbatim. */
export const TEST_SYNC_TOOL_SPEC: FunctionToolSpec = {
  type: "function",
  annotations: { readOnlyHint: true },
  name: "test_sync_tool",
  description: "Internal synchronization helper used by Codex integration tests.",
  strict: false,
  parameters: {
    type: "object",
    properties: {
      barrier: {
        type: "object",
        properties: {
          id: { type: "string", description: "Identifier shared by concurrent calls that should rendezvous" },
          participants: {
            type: "number",
            description: "Number of tool calls that must arrive before the barrier opens",
          },
          timeout_ms: { type: "number", description: "Maximum barrier wait in milliseconds. Defaults to 1000." },
        },
        required: ["id", "participants"],
        additionalProperties: false,
      },
      sleep_after_ms: { type: "number", description: "Delay after completing the barrier. Defaults to no delay." },
      sleep_before_ms: { type: "number", description: "Delay before any other action. Defaults to no delay." },
      wait_for_git_enrichment: {
        type: "boolean",
        description: "Wait for Git enrichment for the current turn to finish, subject to a timeout.",
      },
    },
    additionalProperties: false,
  },
};

interface TestSyncArgs {
  sleep_before_ms?: number;
  sleep_after_ms?: number;
  barrier?: { id: string; participants: number; timeout_ms?: number };
  /** Accepted for Codex's schema; there is no Git enrichment here to wait for. */
  wait_for_git_enrichment?: boolean;
}

/** Barriers by id, shared by every call in the process (as in Codex). */
const barriers = new Map<string, Barrier>();

const fail = (message: string): FunctionCallError => FunctionCallError.respondToModel(message);

async function waitOnBarrier(args: NonNullable<TestSyncArgs["barrier"]>, signal: AbortSignal): Promise<void> {
  const timeoutMs = args.timeout_ms ?? DEFAULT_BARRIER_TIMEOUT_MS;
  if (args.participants < 1) throw fail("barrier participants must be greater than zero");
  if (timeoutMs < 1) throw fail("barrier timeout must be greater than zero");
  signal.throwIfAborted();
  let barrier = barriers.get(args.id);
  if (!barrier) {
    barrier = new Barrier(args.participants);
    barriers.set(args.id, barrier);
  } else if (barrier.participants !== args.participants) {
    throw fail(`barrier ${args.id} already registered with ${barrier.participants} participants`);
  }
  // Every arrival leaves the map in a state a later call can use: the opening arrival removes the barrier.
  if (barrier.arrived + 1 >= barrier.participants) barriers.delete(args.id);
  const limit = deadline(signal, timeoutMs);
  let opened: boolean;
  try {
    opened = await barrier.wait(limit.signal);
  } finally {
    limit.dispose();
  }
  if (opened) return;
  if (barrier.arrived === 0 && barriers.get(args.id) === barrier) barriers.delete(args.id);
  signal.throwIfAborted();
  throw fail("test_sync_tool barrier wait timed out");
}

/**
 * Codex `test_sync_tool`: sleeps and a barrier that several calls must reach together, so
 * tests prove calls overlap by observing it rather than by timing it.
 */
export class TestSyncHandler implements ToolHandler {
  readonly kind = "function" as const;

  async handle(inv: ToolInvocation): Promise<ToolOutput> {
    const args = inv.args as TestSyncArgs;
    // The schema says "number" (as Codex's); counts and delays are whole and not negative.
    const wholes: Array<[string, number | undefined]> = [
      ["sleep_before_ms", args.sleep_before_ms],
      ["sleep_after_ms", args.sleep_after_ms],
      ["barrier.participants", args.barrier?.participants],
      ["barrier.timeout_ms", args.barrier?.timeout_ms],
    ];
    for (const [name, value] of wholes) {
      if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) {
        throw fail(`invalid arguments for test_sync_tool: /${name.replace(".", "/")} must be a whole number >= 0`);
      }
    }
    if (args.sleep_before_ms) await sleep(args.sleep_before_ms, undefined, { signal: inv.signal });
    if (args.barrier) await waitOnBarrier(args.barrier, inv.signal);
    if (args.sleep_after_ms) await sleep(args.sleep_after_ms, undefined, { signal: inv.signal });
    return { kind: "function", body: "ok", success: true };
  }
}

export interface TestSyncToolConfig {
  /** Default false. */
  testSyncTool?: boolean;
}

export const testSyncToolFactory: ToolFactory<TestSyncToolConfig> = (config) =>
  config.testSyncTool === true
    ? [{ spec: TEST_SYNC_TOOL_SPEC, handler: new TestSyncHandler(), supportsParallel: true }]
    : [];
