import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  createToolRouter,
  createTurnContext,
  ToolCallRuntime,
  type ToolEvent,
  type ToolRouter,
  type TurnContext,
} from "../../../src/index.js";
import type { ExecEnvironment } from "../../../src/protocol/index.js";
import { createExecEnvironment } from "../../../src/sandbox/index.js";
import { describeSandbox, Scratch } from "../../sandbox/helpers.js";
import { functionCall } from "../toolHarness.js";

/*
 * Codex 0.171's exec_command streams: output deltas while a call waits on its command, the
 * output on its end event, and Ctrl-C (`\u0003`) to a session without a tty interrupting the
 * command's process group (a trap answers it) and reporting its exit. Real processes, with and
 * without bubblewrap.
 */
const scratch = new Scratch();
let router: ToolRouter;
let events: ToolEvent[];
beforeEach(async () => {
  router = await createToolRouter({ preset: "codex" });
  events = [];
});
afterEach(() => router.close());
afterAll(() => scratch.cleanup());

async function call(turn: TurnContext, name: string, args: unknown): Promise<string> {
  const runtime = new ToolCallRuntime(router, turn);
  runtime.submit(functionCall(name, args));
  const [outcome] = await runtime.drainOutcomes();
  return (outcome!.item as { output: string }).output;
}

/** Waits for the command's `ready` file (generous ceiling: a busy machine starts bubblewrap slowly). */
const ready = (turn: TurnContext): Promise<void> =>
  vi.waitFor(
    () => {
      if (!existsSync(path.join(turn.cwd, "ready"))) throw new Error("not ready yet");
    },
    { timeout: 60_000, interval: 20 },
  );

const sessionOf = (text: string): number => Number(/session ID (\d+)/.exec(text)?.[1]);

/** The suite for one environment: `local` (no sandbox) or bubblewrap's workspace-write. */
function interrupts(environment: () => Promise<ExecEnvironment>): void {
  let turn: TurnContext;
  beforeEach(async () => {
    const env = await environment();
    turn = createTurnContext({ cwd: await scratch.inTmp("intr"), environment: env, onEvent: (e) => events.push(e) });
  });

  it("interrupts a session without a tty on Ctrl-C: its trap answers and its exit is reported", async () => {
    // The trap is set before `ready` exists, so the SIGINT cannot arrive before it.
    const started = await call(turn, "exec_command", {
      cmd: `trap 'echo got INT; exit 7' INT; touch ready; sleep 60 & wait`,
      // No login shell: its profile's noise is not what this test reads.
      login: false,
      yield_time_ms: 250,
    });
    expect(started).toContain("Process running with session ID");
    await ready(turn);
    const out = await call(turn, "write_stdin", {
      session_id: sessionOf(started),
      chars: "\u0003",
      yield_time_ms: 30_000,
    });
    expect(out).toMatch(/Process exited with code 7\n/);
    expect(out).toMatch(/Output:\ngot INT\n$/);
    // The session is gone once its exit was reported.
    expect(await call(turn, "write_stdin", { session_id: sessionOf(started), chars: "" })).toBe(
      `write_stdin failed: Unknown process id ${sessionOf(started)}`,
    );
  });

  it("reports 130 for a command SIGINT ends, and still refuses other input without a tty", async () => {
    const started = await call(turn, "exec_command", {
      cmd: "touch ready; sleep 60",
      login: false,
      yield_time_ms: 250,
    });
    const id = sessionOf(started);
    await ready(turn);
    expect(await call(turn, "write_stdin", { session_id: id, chars: "x\u0003" })).toBe(
      "write_stdin failed: stdin is closed for this session; rerun exec_command with tty=true to keep stdin open",
    );
    const out = await call(turn, "write_stdin", { session_id: id, chars: "\u0003", yield_time_ms: 30_000 });
    expect(out).toMatch(/Process exited with code 130\n/);
  });
}

describe("Ctrl-C without a tty, no sandbox", () => {
  interrupts(() => createExecEnvironment({ cwd: "/" }));
});

describeSandbox("Ctrl-C without a tty, in bubblewrap", () => {
  let env: ExecEnvironment;
  beforeAll(async () => {
    env = await createExecEnvironment({ cwd: "/", sandbox: { mode: "workspace-write" } });
  });
  afterAll(() => env.close?.());
  interrupts(async () => env);
});

describe("exec_command output deltas", () => {
  it("streams what the command prints while the call waits, and carries the output on its end event", async () => {
    const turn = createTurnContext({ cwd: await scratch.inTmp("delta"), onEvent: (e) => events.push(e) });
    // `second` is printed only after `first` was seen as a delta: streaming, not a replay at the end.
    const fifo = `${turn.cwd}/go`;
    const seen = new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (events.some((e) => e.type === "exec_command_output_delta" && e.chunk.includes("first"))) {
          clearInterval(check);
          resolve();
        }
      }, 5);
    });
    const runtime = new ToolCallRuntime(router, turn);
    runtime.submit(
      functionCall("exec_command", {
        cmd: `mkfifo ${fifo}; echo first; read x < ${fifo}; echo second`,
        login: false,
        yield_time_ms: 30_000,
      }),
    );
    const drained = runtime.drainOutcomes();
    await seen;
    await writeFile(fifo, "go\n");
    const [outcome] = await drained;
    expect((outcome!.item as { output: string }).output).toMatch(/Process exited with code 0\n[\s\S]*first\nsecond\n$/);
    const deltas = events.filter((e) => e.type === "exec_command_output_delta");
    expect(deltas.map((e) => e.chunk).join("")).toBe("first\nsecond\n");
    expect(deltas.every((e) => e.toolName === "exec_command" && e.stream === "stdout")).toBe(true);
    const end = events.find((e) => e.type === "exec_command_end");
    expect(end).toMatchObject({ exitCode: 0, output: "first\nsecond\n" });
    // Every delta comes before the end event.
    expect(events.findIndex((e) => e.type === "exec_command_end")).toBeGreaterThan(
      events.findLastIndex((e) => e.type === "exec_command_output_delta"),
    );
  });

  it("streams a session's output to write_stdin's call while it waits", async () => {
    const turn = createTurnContext({ cwd: await scratch.inTmp("delta2"), onEvent: (e) => events.push(e) });
    const started = await call(turn, "exec_command", { cmd: "cat", tty: true, login: false, yield_time_ms: 250 });
    const runtime = new ToolCallRuntime(router, turn);
    runtime.submit({
      ...functionCall("write_stdin", { session_id: sessionOf(started), chars: "hello\n" }),
      call_id: "w1",
    });
    await runtime.drainOutcomes();
    const deltas = events.filter((e) => e.type === "exec_command_output_delta" && e.callId === "w1");
    expect(deltas.map((e) => (e as { chunk: string }).chunk).join("")).toContain("hello");
  });
});
