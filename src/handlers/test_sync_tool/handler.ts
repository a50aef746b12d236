import { setTimeout as sleep } from "node:timers/promises";
import { FunctionCallError, type ToolOutput, type FunctionToolSpec } from "../../protocol/index.js";
import type { ToolHandler, ToolInvocation, ToolFactory } from "../../registry/index.js";
import { deadline } from "../../turn/index.js";
import { Barrier } from "./barrier.js";

const DEFAULT_BARRIER_TIMEOUT_MS = 1000;

export const TEST_SYNC_TOOL_SPEC: FunctionToolSpec = {
  type: "function",
  annotations: { readOnlyHint: true },
  name: "test_sync_tool",
  description: "Internal synchronization helper used by integration tests.",
  strict: false,
  parameters: {
    type: "object",
    properties: {
      sleep_before_ms: {
        type: "integer",
        minimum: 0,
        description: "Optional delay in milliseconds before any other action",
      },
      sleep_after_ms: {
        type: "integer",
        minimum: 0,
        description: "Optional delay in milliseconds after completing the barrier",
      },
      barrier: {
        type: "object",
        properties: {
          id: { type: "string", description: "Identifier shared by concurrent calls that should rendezvous" },
          participants: {
            type: "integer",
            description: "Number of tool calls that must arrive before the barrier opens",
          },
          timeout_ms: { type: "integer", description: "Maximum time in milliseconds to wait at the barrier" },
        },
        required: ["id", "participants"],
        additionalProperties: false,
      },
    },
    additionalProperties: false,
  },
};

interface TestSyncArgs {
  sleep_before_ms?: number;
  sleep_after_ms?: number;
  barrier?: { id: string; participants: number; timeout_ms?: number };
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
