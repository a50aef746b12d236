import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PermissionEngine, type ApprovalRequest } from "../../../src/index.js";
import { shellToolFactory } from "../../../src/handlers/shell/index.js";
import { fromFactory, runtimeOf, useTempDir } from "../toolHarness.js";

/*
 * The Responses API's `shell_call` item (DESIGN section 13): commands run one after another by
 * the user's shell, answered by a `shell_call_output` with one entry per command run. Real
 * child processes in a real temp dir, through the registered shell handler.
 */
let dir: string;
useTempDir((d) => (dir = d));
beforeEach(() => {
  vi.stubEnv("SHELL", "/bin/bash");
});
afterEach(() => {
  vi.unstubAllEnvs();
});

const shellCall = (callId: string, action: Record<string, unknown>) => ({
  type: "shell_call",
  id: `sh_${callId}`,
  call_id: callId,
  status: "completed",
  environment: null,
  action: { timeout_ms: null, max_output_length: null, ...action },
});

describe("shell_call", () => {
  it("runs two commands in order in the turn's cwd by $SHELL -c, each with its own stdout, stderr and exit code", async () => {
    const { runtime, events } = runtimeOf(fromFactory(shellToolFactory, {}), { cwd: dir });
    runtime.submit(
      shellCall("s1", {
        commands: ["echo one > first.txt; pwd", "cat first.txt; echo oops >&2; exit 3"],
        max_output_length: 4096,
      }),
    );
    const [outcome] = await runtime.drainOutcomes();
    expect(outcome?.item).toEqual({
      type: "shell_call_output",
      call_id: "s1",
      max_output_length: 4096,
      output: [
        { stdout: `${dir}\n`, stderr: "", outcome: { type: "exit", exit_code: 0 } },
        { stdout: "one\n", stderr: "oops\n", outcome: { type: "exit", exit_code: 3 } },
      ],
    });
    expect(outcome?.success).toBe(false);
    expect(outcome?.toolName).toBe("shell");
    // Each command is a command of its own to event consumers.
    const begins = events.filter((e) => e.type === "exec_command_begin");
    expect(begins.map((e) => (e as { command: string[] }).command)).toEqual([
      ["/bin/bash", "-c", "echo one > first.txt; pwd"],
      ["/bin/bash", "-c", "cat first.txt; echo oops >&2; exit 3"],
    ]);
  });

  it("a timeout ends the call: the command is killed, reported as a timeout, and later commands never run", async () => {
    const { runtime } = runtimeOf(fromFactory(shellToolFactory, {}), { cwd: dir });
    runtime.submit(
      shellCall("s2", { commands: ["echo before", "echo started; exec sleep 30", "touch never.txt"], timeout_ms: 300 }),
    );
    const [outcome] = await runtime.drainOutcomes();
    expect(outcome?.item).toEqual({
      type: "shell_call_output",
      call_id: "s2",
      output: [
        { stdout: "before\n", stderr: "", outcome: { type: "exit", exit_code: 0 } },
        { stdout: "started\n", stderr: "", outcome: { type: "timeout" } },
      ],
    });
    expect(existsSync(path.join(dir, "never.txt"))).toBe(false);
  });

  it("max_output_length bounds each stream, keeping its head and tail", async () => {
    const { runtime } = runtimeOf(fromFactory(shellToolFactory, {}), { cwd: dir });
    runtime.submit(shellCall("s3", { commands: ["printf 'a%.0s' $(seq 500); printf END"], max_output_length: 40 }));
    const [outcome] = await runtime.drainOutcomes();
    const item = outcome?.item as { output: Array<{ stdout: string }>; max_output_length: number };
    expect(item.max_output_length).toBe(40);
    expect(item.output[0]?.stdout).toMatch(/^a{20}…\d+ chars truncated…a+END$/);
    expect(Buffer.byteLength(item.output[0]!.stdout.replace(/…\d+ chars truncated…/, ""))).toBeLessThanOrEqual(40);
  });

  it("asks once for the whole command list; a denied call runs none of its commands", async () => {
    const asked: ApprovalRequest[] = [];
    const permissions = new PermissionEngine({
      approve: async (req) => {
        asked.push(req);
        return { decision: "deny", message: "not today" };
      },
    });
    const { runtime } = runtimeOf(fromFactory(shellToolFactory, {}), { cwd: dir, permissions });
    runtime.submit(shellCall("deny", { commands: ["touch a.txt", "touch b.txt"] }));
    expect(await runtime.drain()).toEqual([
      {
        type: "shell_call_output",
        call_id: "deny",
        output: [{ stdout: "", stderr: "rejected by user: not today", outcome: { type: "exit", exit_code: 1 } }],
      },
    ]);
    expect(asked.map((r) => r.summary)).toEqual(["touch a.txt\ntouch b.txt"]);
    expect(existsSync(path.join(dir, "a.txt")) || existsSync(path.join(dir, "b.txt"))).toBe(false);
  });

  it("goes to shell_command when that is the shell tool offered", async () => {
    const { runtime } = runtimeOf(fromFactory(shellToolFactory, { shell: "shell_command" }), { cwd: dir });
    runtime.submit(shellCall("s4", { commands: ["echo hi"] }));
    const [outcome] = await runtime.drainOutcomes();
    expect(outcome?.toolName).toBe("shell_command");
    expect(outcome?.item).toMatchObject({ output: [{ stdout: "hi\n", outcome: { type: "exit", exit_code: 0 } }] });
  });

  it("a malformed action, or no shell tool at all, is answered in a shell_call_output naming the problem", async () => {
    const { runtime } = runtimeOf(fromFactory(shellToolFactory, {}), { cwd: dir });
    runtime.submit(shellCall("bad", { commands: [] }));
    const none = runtimeOf([], { cwd: dir }).runtime;
    none.submit(shellCall("nobody", { commands: ["true"] }));
    const failure = (stderr: string) => [{ stdout: "", stderr, outcome: { type: "exit", exit_code: 1 } }];
    expect(await runtime.drain()).toEqual([
      {
        type: "shell_call_output",
        call_id: "bad",
        output: failure("shell_call action.commands must be a non-empty array of strings"),
      },
    ]);
    expect(await none.drain()).toEqual([
      { type: "shell_call_output", call_id: "nobody", output: failure("unsupported call: shell") },
    ]);
  });
});
