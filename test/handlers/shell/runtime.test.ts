import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { ToolRouter } from "../../../src/index.js";
import {
  createTurnContext,
  ReadinessFlag,
  specName,
  ToolCallRuntime,
  createToolRouter,
  type ToolCall,
  type ToolEvent,
} from "../../../src/index.js";
import { processAlive } from "../../../src/process/index.js";
import { createExecEnvironment } from "../../../src/sandbox/index.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "shell-runtime-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const call = (callId: string, args: unknown, name = "shell") => ({
  type: "function_call" as const,
  call_id: callId,
  name,
  arguments: JSON.stringify(args),
});

async function setup(
  opts: { gate?: ReadinessFlag; shell?: "shell" | "shell_command"; shellNonSafeExclusive?: boolean } = {},
) {
  const router = await createToolRouter({
    shell: opts.shell ?? "shell",
    execTimeoutMs: 10_000,
    shellNonSafeExclusive: opts.shellNonSafeExclusive ?? false,
  });
  const events: ToolEvent[] = [];
  const turn = createTurnContext({
    cwd: dir,
    // The tests follow the host's pids of a command's processes: no PID namespace to renumber them.
    environment: await createExecEnvironment({ cwd: dir, pidNamespace: false }),
    onEvent: (e) => events.push(e),
    ...(opts.gate ? { toolCallGate: opts.gate } : {}),
  });
  return { router, runtime: new ToolCallRuntime(router, turn), events };
}

describe("shell tools through the router and runtime", () => {
  it("registers shell (+ local_shell alias) or shell_command per config", async () => {
    const names = (r: ToolRouter) => r.specs().map((s) => specName(s.spec));
    const shell = await createToolRouter({ shell: "shell" });
    expect(names(shell)).toContain("shell");
    expect(shell.toolSupportsParallel("shell")).toBe(true);
    expect(shell.toolSupportsParallel("local_shell")).toBe(true);
    const command = await createToolRouter({ shell: "shell_command" });
    expect(names(command)).toContain("shell_command");
    expect(names(command)).not.toContain("shell");
    expect(names(await createToolRouter({ shell: false }))).not.toContain("shell");
    await expect(createToolRouter({ execTimeoutMs: -1 })).rejects.toThrow(/execTimeoutMs must be a positive number/);
  });

  it("runs two shell calls at the same time (each waits for the other's marker file)", async () => {
    const { runtime } = await setup();
    const wait = (mine: string, theirs: string) =>
      `touch ${mine}; while [ ! -f ${theirs} ]; do sleep 0.01; done; echo ${mine} saw ${theirs}`;
    runtime.submit(call("a", { command: ["bash", "-c", wait("a.marker", "b.marker")], timeout_ms: 5_000 }));
    runtime.submit(call("b", { command: ["bash", "-c", wait("b.marker", "a.marker")], timeout_ms: 5_000 }));
    const outcomes = await runtime.drainOutcomes();
    expect(outcomes.map((o) => o.success)).toEqual([true, true]);
    expect(outcomes[0]?.item).toMatchObject({
      call_id: "a",
      output: expect.stringMatching(/Output:\na.marker saw b.marker\n$/),
    });
    expect(outcomes[1]?.item).toMatchObject({
      call_id: "b",
      output: expect.stringMatching(/Output:\nb.marker saw a.marker\n$/),
    });
  });

  it("under shellNonSafeExclusive, a call not known to be safe runs alone", async () => {
    const { router, runtime, events } = await setup({ shellNonSafeExclusive: true });
    const parallel = (args: unknown) => router.callSupportsParallel(router.buildToolCall(call("p", args)) as ToolCall);
    expect(parallel({ command: ["ls", "-la"] })).toBe(true);
    expect(parallel({ command: ["bash", "-lc", "git status && ls"] })).toBe(true);
    expect(parallel({ command: ["touch", "x"] })).toBe(false);
    expect(parallel({ command: "not an array" })).toBe(false);
    const local = router.buildToolCall({
      type: "local_shell_call",
      call_id: "l",
      action: { type: "exec", command: ["rm", "x"] },
    });
    expect(router.callSupportsParallel(local as ToolCall)).toBe(false);
    // Each waits a while for the other's marker: overlapping calls would see each other.
    const wait = (mine: string, theirs: string) =>
      `touch ${mine}; for i in $(seq 40); do [ -f ${theirs} ] && break; sleep 0.02; done; ` +
      `if [ -f ${theirs} ]; then echo ${mine} saw ${theirs}; else echo ${mine} alone; fi`;
    runtime.submit(call("x1", { command: ["bash", "-c", wait("x1.marker", "x2.marker")] }));
    runtime.submit(call("x2", { command: ["bash", "-c", wait("x2.marker", "x1.marker")] }));
    const [x1, x2] = await runtime.drain();
    expect(x1).toMatchObject({ output: expect.stringMatching(/Output:\nx1.marker alone\n$/) });
    expect(x2).toMatchObject({ output: expect.stringMatching(/Output:\nx2.marker saw x1.marker\n$/) });
    const at = (type: string, callId: string) => events.findIndex((e) => e.type === type && e.callId === callId);
    expect(at("tool_call_begin", "x2")).toBeGreaterThan(at("tool_call_end", "x1"));
  });

  it("runs ls while the gate is closed; touch waits for it", async () => {
    const gate = new ReadinessFlag();
    const token = gate.subscribe();
    const { runtime, events } = await setup({ gate });
    const file = path.join(dir, "touched");
    runtime.submit(call("touch", { command: ["touch", file] }));
    const ls = await runtime.handleToolCall({
      toolName: "shell",
      callId: "ls",
      payload: { kind: "function", arguments: JSON.stringify({ command: ["ls"] }) },
    });
    expect(ls.success).toBe(true);
    expect(existsSync(file)).toBe(false);
    expect(events.some((e) => e.type === "tool_call_begin" && e.callId === "touch")).toBe(false);
    expect(gate.markReady(token)).toBe(true);
    const [touch] = await runtime.drainOutcomes();
    expect(touch?.success).toBe(true);
    expect(existsSync(file)).toBe(true);
  });

  it("abort answers within 100 ms with the output seen so far, and the group dies, grandchild included", async () => {
    const { runtime, events } = await setup();
    runtime.submit(call("long", { command: ["bash", "-c", "sleep 30 & echo $$ $!; echo partial; sleep 30"] }));
    await vi.waitFor(
      () => {
        const text = events.flatMap((e) => (e.type === "exec_command_output_delta" ? [e.chunk] : [])).join("");
        if (!text.includes("partial")) throw new Error("no output yet");
      },
      { timeout: 5_000, interval: 5 },
    );
    const started = performance.now();
    runtime.abort();
    const [outcome] = await runtime.drainOutcomes();
    expect(performance.now() - started).toBeLessThan(100);
    expect(outcome).toMatchObject({ aborted: true, success: false });
    const output = (outcome?.item as { output: string }).output;
    const m = /^Wall time: \d+\.\d seconds\naborted by user\nOutput:\n(\d+) (\d+)\npartial\n$/.exec(output);
    expect(m, output).not.toBeNull();
    const pids = [Number(m?.[1]), Number(m?.[2])];
    await vi.waitFor(
      () => {
        expect(pids.map(processAlive)).toEqual([false, false]);
      },
      { timeout: 3_000, interval: 10 },
    );
    await vi.waitFor(
      () => {
        expect(events.some((e) => e.type === "exec_command_end" && e.aborted)).toBe(true);
      },
      { timeout: 3_000 },
    );
  });

  it("a shell call aborted before it started answers Codex's exec abort text, without output", async () => {
    const { router, events } = await setup();
    const turn = createTurnContext({ cwd: dir, onEvent: (e) => events.push(e) });
    const runtime = new ToolCallRuntime(router, turn, { maxConcurrency: 1 });
    runtime.submit(call("running", { command: ["sleep", "30"] }));
    runtime.submit(call("queued", { command: ["echo", "never"] }));
    await vi.waitFor(
      () => {
        expect(events.some((e) => e.type === "exec_command_begin")).toBe(true);
      },
      { timeout: 5_000 },
    );
    runtime.abort();
    const [running, queued] = await runtime.drainOutcomes();
    expect(running).toMatchObject({ aborted: true });
    expect(queued).toMatchObject({ aborted: true, success: false });
    expect((queued?.item as { output: string }).output).toMatch(/^Wall time: \d+\.\d seconds\naborted by user$/);
    expect(events.filter((e) => e.type === "tool_call_begin").map((e) => e.callId)).toEqual(["running"]);
  });

  it("answers a local_shell_call with local_shell_call_output", async () => {
    const { runtime } = await setup();
    runtime.submit({
      type: "local_shell_call",
      id: "ls_item",
      call_id: "local-1",
      action: {
        type: "exec",
        command: ["bash", "-c", "echo $GREETING; pwd"],
        working_directory: dir,
        env: { GREETING: "hi" },
      },
    });
    const [item] = await runtime.drain();
    expect(item).toEqual({
      type: "local_shell_call_output",
      id: "local-1",
      output: expect.stringMatching(
        new RegExp(`^Exit code: 0\\nWall time: \\d+\\.\\d seconds\\nOutput:\\nhi\\n${dir}\\n$`),
      ),
    });
  });

  it("validates shell arguments before running anything", async () => {
    const { runtime } = await setup();
    runtime.submit(call("bad", { command: "ls" }));
    runtime.submit(call("empty", { command: [] }));
    const [bad, empty] = await runtime.drainOutcomes();
    expect(bad?.success).toBe(false);
    expect((bad?.item as { output: string }).output).toMatch(/^invalid arguments for shell: \/command must be array/);
    expect((empty?.item as { output: string }).output).toMatch(
      /^invalid arguments for shell: \/command must NOT have fewer than 1 items/,
    );
  });

  it("runs shell_command through the user's shell", async () => {
    const { runtime } = await setup({ shell: "shell_command" });
    runtime.submit(call("sc", { command: "echo a && echo b >&2; exit 2", login: false }, "shell_command"));
    const [outcome] = await runtime.drainOutcomes();
    expect(outcome?.success).toBe(false);
    expect((outcome?.item as { output: string }).output).toMatch(
      /^Exit code: 2\nWall time: \d+\.\d seconds\nOutput:\na\nb\n$/,
    );
  });
});
