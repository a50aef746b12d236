import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect } from "vitest";
import {
  createTurnContext,
  specName,
  ToolCallRuntime,
  ToolRegistryBuilder,
  ToolRouter,
  type ToolCallOutcome,
  type ToolEvent,
  type ToolRegistration,
  type ToolsConfig,
  type TurnContext,
} from "../../src/index.js";
import { FileReadLedger, type ToolFactory } from "../../src/registry/index.js";

/** A router with exactly the registrations given (real specs, validators and handlers). */
export function routerOf(registrations: ToolRegistration[]): ToolRouter {
  const builder = new ToolRegistryBuilder();
  for (const { spec, handler, supportsParallel } of registrations) {
    builder.pushSpecWithParallelSupport(spec, supportsParallel).registerHandler(specName(spec), handler);
  }
  const { specs, registry } = builder.build();
  return new ToolRouter(registry, specs);
}

export function runtimeOf(
  registrations: ToolRegistration[],
  turn: Partial<TurnContext> = {},
): { runtime: ToolCallRuntime; events: ToolEvent[]; turn: TurnContext } {
  const events: ToolEvent[] = [];
  const ctx = createTurnContext({ onEvent: (e) => events.push(e), ...turn });
  return { runtime: new ToolCallRuntime(routerOf(registrations), ctx), events, turn: ctx };
}

/** The registrations a built-in factory adds for `config`; pass one `fileReads` to share a session's ledger. */
export function fromFactory(
  factory: ToolFactory<ToolsConfig>,
  config: ToolsConfig = {},
  fileReads: FileReadLedger = new FileReadLedger(),
): ToolRegistration[] {
  return factory(config, { dynamicTools: [], fileReads });
}

let counter = 0;
export const functionCall = (name: string, args: unknown, callId = `call-${++counter}`) => ({
  type: "function_call",
  call_id: callId,
  name,
  arguments: JSON.stringify(args),
});

/** Runs one function call through submit/drain and returns its outcome. */
export async function callTool(
  registrations: ToolRegistration[],
  name: string,
  args: unknown,
  turn: Partial<TurnContext> = {},
): Promise<ToolCallOutcome & { text: string }> {
  return callRouter(routerOf(registrations), name, args, turn);
}

/** Runs one function call on `router` (a session: it keeps what it holds across calls) in a new turn. */
export async function callRouter(
  router: ToolRouter,
  name: string,
  args: unknown,
  turn: Partial<TurnContext> = {},
): Promise<ToolCallOutcome & { text: string }> {
  const runtime = new ToolCallRuntime(router, createTurnContext(turn));
  runtime.submit(functionCall(name, args));
  const [outcome] = await runtime.drainOutcomes();
  if (!outcome) throw new Error("no outcome");
  const output = "output" in outcome.item ? outcome.item.output : "";
  return { ...outcome, text: typeof output === "string" ? output : JSON.stringify(output) };
}

/** A fresh real temp directory; `cleanup` removes it. */
export async function tempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "toolcall-"));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** A fresh temp dir for each test (its real path, symlinks resolved), removed afterwards. */
export function useTempDir(onCreate: (dir: string) => void): void {
  let cleanup: (() => Promise<void>) | undefined;
  beforeEach(async () => {
    const made = await tempDir();
    cleanup = made.cleanup;
    onCreate(await realpath(made.dir));
  });
  afterEach(() => cleanup?.());
}

/** Matches apply_patch's answer as Codex 0.169 words it: a run of the command, with any wall time. */
export const patchRun = (output: string, exitCode = 0): unknown =>
  expect.stringMatching(
    new RegExp(
      `^Exit code: ${exitCode}\\nWall time: \\d+(\\.\\d)? seconds\\nOutput:\\n${output.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`,
    ),
  );
