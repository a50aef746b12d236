import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTurnContext,
  FunctionCallError,
  ShellCommandHandler,
  ShellHandler,
  processAlive,
  type ToolEvent,
  type ToolInvocation,
  type ToolOutput,
  type TruncationPolicy,
} from "../../../src/index.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "shell-exec-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Run {
  inv: ToolInvocation;
  events: ToolEvent[];
}

function invocation(args: unknown, opts: { signal?: AbortSignal; policy?: TruncationPolicy; toolName?: string } = {}): Run {
  const events: ToolEvent[] = [];
  const turn = createTurnContext({
    cwd: dir,
    onEvent: (e) => events.push(e),
    ...(opts.policy ? { truncationPolicy: opts.policy } : {}),
  });
  const inv: ToolInvocation = {
    callId: "call-1",
    toolName: opts.toolName ?? "shell",
    payload: { kind: "function", arguments: JSON.stringify(args) },
    args,
    signal: opts.signal ?? new AbortController().signal,
    turn,
    context: undefined,
  };
  return { inv, events };
}

const shell = new ShellHandler({ timeoutMs: 10_000, killGraceMs: 200 });

function body(out: ToolOutput): string {
  if (out.kind !== "function" || typeof out.body !== "string") throw new Error("expected a text function output");
  return out.body;
}

/** `Exit code` / `Wall time` / rest, with the wall time checked for shape only. */
function parts(text: string): { exit: string; rest: string } {
  const m = /^Exit code: (-?\d+)\nWall time: \d+\.\d seconds\n([\s\S]*)$/.exec(text);
  if (!m) throw new Error(`not an exec output: ${JSON.stringify(text)}`);
  return { exit: m[1] as string, rest: m[2] as string };
}

async function expectModelError(promise: Promise<unknown>, message: string | RegExp): Promise<void> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FunctionCallError);
  expect((err as FunctionCallError).kind).toBe("respond_to_model");
  expect((err as Error).message).toMatch(message);
}

describe("shell handler with real processes", () => {
  it("reports exit code 0 and the output", async () => {
    const { inv, events } = invocation({ command: ["echo", "hello"] });
    const out = await shell.handle(inv);
    expect(parts(body(out))).toEqual({ exit: "0", rest: "Output:\nhello\n" });
    expect(out).toMatchObject({ success: true, bounded: true });
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("exec_command_begin");
    expect(types.at(-1)).toBe("exec_command_end");
    expect(events.at(-1)).toMatchObject({ exitCode: 0, timedOut: false, aborted: false });
    expect(events.find((e) => e.type === "exec_command_begin")).toMatchObject({ command: ["echo", "hello"], cwd: dir });
  });

  it("fails with the exit code of a failing command", async () => {
    const { inv } = invocation({ command: ["bash", "-c", "echo oops; exit 3"] });
    const out = await shell.handle(inv);
    expect(parts(body(out))).toEqual({ exit: "3", rest: "Output:\noops\n" });
    expect(out).toMatchObject({ success: false });
  });

  it("aggregates stdout and stderr in arrival order", async () => {
    const script = "echo out1; sleep 0.1; echo err1 >&2; sleep 0.1; echo out2; sleep 0.1; echo err2 >&2";
    const { inv, events } = invocation({ command: ["bash", "-c", script] });
    expect(parts(body(await shell.handle(inv))).rest).toBe("Output:\nout1\nerr1\nout2\nerr2\n");
    const deltas = events.flatMap((e) => (e.type === "exec_command_output_delta" ? [`${e.stream}:${e.chunk}`] : []));
    expect(deltas.join("")).toContain("stderr:err1\n");
  });

  it("resolves workdir against the turn cwd", async () => {
    const { mkdir } = await import("node:fs/promises");
    await mkdir(path.join(dir, "sub"), { recursive: true });
    const { inv } = invocation({ command: ["pwd"], workdir: "sub" });
    expect(parts(body(await shell.handle(inv))).rest).toBe(`Output:\n${path.join(dir, "sub")}\n`);
  });

  it("closes stdin so a command reading it ends", async () => {
    const { inv } = invocation({ command: ["bash", "-c", "cat; read line; echo read-status=$?"], timeout_ms: 5_000 });
    const out = await shell.handle(inv);
    expect(parts(body(out))).toEqual({ exit: "0", rest: "Output:\nread-status=1\n" });
  });

  it("kills a timed-out command and its background grandchild", async () => {
    const { inv, events } = invocation({ command: ["bash", "-c", "sleep 30 & echo $$ $!; sleep 30"], timeout_ms: 300 });
    const out = await shell.handle(inv);
    const { exit, rest } = parts(body(out));
    expect(exit).toBe("124");
    const m = /^Output:\ncommand timed out after 300 milliseconds\n(\d+) (\d+)\n$/.exec(rest);
    expect(m, rest).not.toBeNull();
    const [shellPid, sleepPid] = [Number(m?.[1]), Number(m?.[2])];
    expect(processAlive(shellPid)).toBe(false);
    expect(processAlive(sleepPid)).toBe(false);
    expect(out).toMatchObject({ success: false });
    expect(events.at(-1)).toMatchObject({ type: "exec_command_end", exitCode: 124, timedOut: true });
  });

  it("escalates to SIGKILL when the group ignores SIGTERM", async () => {
    const script = "trap '' TERM; (trap '' TERM; sleep 30) & echo $$ $!; sleep 30";
    const { inv } = invocation({ command: ["bash", "-c", script], timeout_ms: 200 });
    const m = /(\d+) (\d+)\n$/.exec(body(await shell.handle(inv)));
    expect(processAlive(Number(m?.[1]))).toBe(false);
    expect(processAlive(Number(m?.[2]))).toBe(false);
  });

  it("kills background processes left behind when the command ends normally", async () => {
    const { inv } = invocation({ command: ["bash", "-c", "sleep 30 >/dev/null 2>&1 & echo $!"] });
    const out = await shell.handle(inv);
    const pid = Number(/Output:\n(\d+)\n$/.exec(body(out))?.[1]);
    expect(pid).toBeGreaterThan(0);
    expect(processAlive(pid)).toBe(false);
    expect(out).toMatchObject({ success: true });
  });

  it("on abort kills the group and keeps the output seen so far", async () => {
    const controller = new AbortController();
    const { inv, events } = invocation({ command: ["bash", "-c", "echo $$; echo partial; sleep 30"] }, { signal: controller.signal });
    const running = shell.handle(inv);
    // Abort once the output has arrived (the delta event carries it).
    for (let i = 0; i < 2000 && !(shell.abortedOutput(inv) ?? "").includes("partial"); i++) {
      await new Promise((r) => setTimeout(r, 5));
    }
    const seen = shell.abortedOutput(inv) ?? "";
    expect(seen).toMatch(/^\d+\npartial\n$/);
    controller.abort();
    const out = await running;
    expect(processAlive(Number(seen.split("\n")[0]))).toBe(false);
    expect(out).toMatchObject({ success: false });
    expect(events.at(-1)).toMatchObject({ type: "exec_command_end", aborted: true });
  });

  it("bounds a 50 MB output: exact truncated format, bounded retained bytes", async () => {
    const policy: TruncationPolicy = { mode: "bytes", limit: 10_000 };
    const total = 50 * 1024 * 1024;
    const { inv } = invocation({ command: ["bash", "-c", `yes abcdefghi | head -c ${total}`] }, { policy });
    const out = await shell.handle(inv);
    expect(out).toMatchObject({ success: true, bounded: true });
    const line = "abcdefghi\n";
    const head = line.repeat(500);
    const tail = line.repeat(500);
    expect(parts(body(out))).toEqual({
      exit: "0",
      rest: `Total output lines: ${total / 10}\nOutput:\n${head}…${total - 10_000} chars truncated…${tail}`,
    });
    const capture = shell.captureOf(inv);
    expect(capture?.totalBytes).toBe(total);
    expect(capture?.peakRetainedBytes).toBeLessThanOrEqual(10_000 + 16);
  });

  it("answers a missing binary, a non-executable file and a bad workdir with clear messages", async () => {
    await expectModelError(shell.handle(invocation({ command: ["definitely-not-a-command-xyz"] }).inv), "command not found: definitely-not-a-command-xyz");
    const script = path.join(dir, "not-exec.sh");
    await writeFile(script, "#!/bin/sh\necho hi\n");
    await chmod(script, 0o644);
    await expectModelError(shell.handle(invocation({ command: [script] }).inv), `permission denied: ${script} is not executable`);
    await expectModelError(shell.handle(invocation({ command: ["ls"], workdir: "missing-dir" }).inv), `workdir does not exist: ${path.join(dir, "missing-dir")}`);
    await expectModelError(shell.handle(invocation({ command: ["ls"], workdir: "not-exec.sh" }).inv), `workdir is not a directory: ${script}`);
  });

  it("classifies calls: known-safe commands are not mutating", () => {
    expect(shell.isMutating(invocation({ command: ["ls", "-la"] }).inv)).toBe(false);
    expect(shell.isMutating(invocation({ command: ["bash", "-lc", "ls && touch x"] }).inv)).toBe(true);
  });
});

describe("shell_command handler", () => {
  const handler = new ShellCommandHandler({ timeoutMs: 10_000 });

  it("runs the script with the user's shell", async () => {
    const { inv } = invocation({ command: "echo one | tr a-z A-Z && echo $((1+2))", login: false }, { toolName: "shell_command" });
    expect(parts(body(await handler.handle(inv)))).toEqual({ exit: "0", rest: "Output:\nONE\n3\n" });
  });

  it("classifies the script like bash -lc", () => {
    expect(handler.isMutating(invocation({ command: "ls | wc -l" }).inv)).toBe(process.env["SHELL"]?.endsWith("fish") ?? false);
    expect(handler.isMutating(invocation({ command: "rm -rf x" }).inv)).toBe(true);
  });
});
