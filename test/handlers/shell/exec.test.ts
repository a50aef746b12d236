import { spawn, type ChildProcess } from "node:child_process";
import { getEventListeners } from "node:events";
import { existsSync } from "node:fs";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { collect, TSX } from "../../cli/helpers.js";
import {
  createTurnContext,
  FunctionCallError,
  type ToolEvent,
  type ToolInvocation,
  type ToolOutput,
  type TruncationPolicy,
} from "../../../src/index.js";
import { ShellCommandHandler, ShellHandler } from "../../../src/subpaths/handlers.js";
import { userShell } from "../../../src/handlers/shell/index.js";
import type { ExecEnvironment } from "../../../src/protocol/index.js";
import { createExecEnvironment, runCommand } from "../../../src/sandbox/index.js";
import { processAlive } from "../../../src/process/index.js";

// These tests follow the host's pids of a command's processes, which a PID namespace renumbers:
// they run the group-kill path (as where bubblewrap is missing); orphans.test.ts covers the namespace.
let groupKill: ExecEnvironment;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "shell-exec-"));
  groupKill = await createExecEnvironment({ cwd: dir, pidNamespace: false });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Run {
  inv: ToolInvocation;
  events: ToolEvent[];
}

function invocation(
  args: unknown,
  opts: { signal?: AbortSignal; policy?: TruncationPolicy; toolName?: string } = {},
): Run {
  const events: ToolEvent[] = [];
  const turn = createTurnContext({
    cwd: dir,
    environment: groupKill,
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

  it("on abort kills the group, background grandchild included, and keeps the output seen so far", async () => {
    const controller = new AbortController();
    const script = "sleep 30 & echo $$ $!; echo partial; sleep 30";
    const { inv, events } = invocation({ command: ["bash", "-c", script] }, { signal: controller.signal });
    const running = shell.handle(inv);
    // Abort once the output has arrived.
    await vi.waitFor(
      () => {
        expect(shell.abortedOutput(inv, 0)).toContain("partial");
      },
      { timeout: 5_000, interval: 5 },
    );
    // The whole aborted text (Codex's exec abort lines), then what the command printed.
    const header = "Wall time: 0.0 seconds\naborted by user\nOutput:\n";
    const text = shell.abortedOutput(inv, 0);
    expect(text.startsWith(header), text).toBe(true);
    const seen = text.slice(header.length);
    const m = /^(\d+) (\d+)\npartial\n$/.exec(seen);
    expect(m, seen).not.toBeNull();
    controller.abort();
    const out = await running;
    expect(processAlive(Number(m?.[1]))).toBe(false);
    expect(processAlive(Number(m?.[2]))).toBe(false);
    expect(out).toMatchObject({ success: false });
    expect(events.at(-1)).toMatchObject({ type: "exec_command_end", aborted: true });
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("acts on an abort that arrives while the process is being spawned", async () => {
    const controller = new AbortController();
    const env = await createExecEnvironment({ cwd: dir });
    // runCommand is now looking the program up and spawning it.
    const running = runCommand(
      env,
      { argv: ["sleep", "30"], cwd: dir },
      { timeoutMs: 60_000, signal: controller.signal, killGraceMs: 200 },
    );
    controller.abort();
    const result = await running;
    expect(result).toMatchObject({ aborted: true, timedOut: false });
    expect(processAlive(result.pid as number)).toBe(false);
  });

  it("removes its abort and exit listeners when the call ends (normal end, timeout, spawn failure)", async () => {
    const controller = new AbortController();
    const { signal } = controller;
    const exitListeners = process.listenerCount("exit");
    await shell.handle(invocation({ command: ["true"] }, { signal }).inv);
    await shell.handle(invocation({ command: ["sleep", "30"], timeout_ms: 50 }, { signal }).inv);
    await shell
      .handle(invocation({ command: ["definitely-not-a-command-xyz"] }, { signal }).inv)
      .catch(() => undefined);
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
    expect(process.listenerCount("exit")).toBe(exitListeners);
  });

  it("honours a timeout beyond setTimeout's range instead of firing at once", async () => {
    const { inv } = invocation({ command: ["bash", "-c", "sleep 0.1; echo done"], timeout_ms: 2 ** 31 + 1_000 });
    const out = await shell.handle(inv);
    expect(parts(body(out))).toEqual({ exit: "0", rest: "Output:\ndone\n" });
  });

  describe("host process ending while a command runs", () => {
    const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "exitWhileRunning.ts");

    /** Runs the fixture host, `end`s it once it printed the pids, and checks no process of the group survived. */
    async function hostEnds(mode: "exit" | "wait" | "handled", end: (host: ChildProcess) => void) {
      const host = spawn(process.execPath, ["--import", TSX, fixture, mode], {
        cwd: dir,
        stdio: ["ignore", "pipe", "pipe"],
      });
      const result = collect(host);
      await new Promise<void>((resolve) => {
        let printed = "";
        host.stdout?.on("data", (chunk: string) => {
          if ((printed += chunk).includes("\n")) resolve();
        });
        host.once("close", () => {
          resolve();
        });
      });
      end(host);
      // A host that did not end (a failing test) is ended by a signal it cannot ignore here.
      const guard = setTimeout(() => host.kill("SIGTERM"), 10_000);
      const { code, signal, stdout, stderr } = await result.finally(() => {
        clearTimeout(guard);
      });
      const m = /^(\d+) (\d+)\n$/.exec(stdout);
      expect(m, `${stdout}${stderr}`).not.toBeNull();
      const pids = [Number(m?.[1]), Number(m?.[2])];
      try {
        // The kill was under way before the host ended; the kernel finishes the job.
        await vi.waitFor(
          () => {
            expect(pids.map(processAlive)).toEqual([false, false]);
          },
          { timeout: 3_000, interval: 10 },
        );
      } finally {
        for (const pid of pids) signalIfAlive(pid);
      }
      return { code, signal };
    }

    it("kills running process groups on process.exit", async () => {
      expect(await hostEnds("exit", () => undefined)).toEqual({ code: 0, signal: null });
    });

    it.each(["SIGINT", "SIGTERM"] as const)(
      "kills running process groups on an unhandled %s, then ends by it",
      async (sig) => {
        expect(await hostEnds("wait", (host) => host.kill(sig))).toEqual({ code: null, signal: sig });
      },
    );

    it("kills the command and its background grandchild when the host dies by SIGKILL (the watchdog)", async () => {
      expect(await hostEnds("wait", (host) => host.kill("SIGKILL"))).toEqual({ code: null, signal: "SIGKILL" });
    });

    it("passes a SIGINT the host handles itself on to the command, as a terminal would", async () => {
      // The foreground sleep dies of it, so does the shell; the call ends and kills the rest.
      expect(await hostEnds("handled", (host) => host.kill("SIGINT"))).toEqual({ code: 0, signal: null });
    });
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
    await expectModelError(
      shell.handle(invocation({ command: ["definitely-not-a-command-xyz"] }).inv),
      "command not found: definitely-not-a-command-xyz",
    );
    const script = path.join(dir, "not-exec.sh");
    await writeFile(script, "#!/bin/sh\necho hi\n");
    await chmod(script, 0o644);
    await expectModelError(
      shell.handle(invocation({ command: [script] }).inv),
      `permission denied: ${script} is not executable`,
    );
    await expectModelError(
      shell.handle(invocation({ command: ["ls"], workdir: "missing-dir" }).inv),
      `workdir does not exist: ${path.join(dir, "missing-dir")}`,
    );
    await expectModelError(
      shell.handle(invocation({ command: ["ls"], workdir: "not-exec.sh" }).inv),
      `workdir is not a directory: ${script}`,
    );
  });

  it("a program found once and then removed or made non-executable is reported as such (the lookup cache forgets it)", async () => {
    const script = path.join(dir, "comes-and-goes.sh");
    await writeFile(script, "#!/bin/sh\necho here\n");
    await chmod(script, 0o755);
    expect(body(await shell.handle(invocation({ command: [script] }).inv))).toContain("here");
    await chmod(script, 0o644);
    await expectModelError(
      shell.handle(invocation({ command: [script] }).inv),
      `permission denied: ${script} is not executable`,
    );
    await rm(script);
    await expectModelError(shell.handle(invocation({ command: [script] }).inv), `command not found: ${script}`);
    await writeFile(script, "#!/bin/sh\necho back\n");
    await chmod(script, 0o755);
    expect(body(await shell.handle(invocation({ command: [script] }).inv))).toContain("back");
  });

  it("classifies calls: known-safe commands are not mutating", () => {
    expect(shell.isMutating(invocation({ command: ["ls", "-la"] }).inv)).toBe(false);
    expect(shell.isMutating(invocation({ command: ["bash", "-lc", "ls && touch x"] }).inv)).toBe(true);
  });

  it("does not trust a known-safe command run with an environment the model chose", async () => {
    const localShell = (command: string[], env?: Record<string, string>): ToolInvocation => ({
      ...invocation(undefined).inv,
      payload: { kind: "local_shell", params: { command, ...(env && { env }) } },
    });
    expect(shell.isMutating(localShell(["bash", "-lc", "ls"]))).toBe(false);
    expect(shell.isMutating(localShell(["bash", "-lc", "ls"], {}))).toBe(false);
    // BASH_ENV is sourced by a non-interactive bash: this "ls" writes a file.
    const hook = path.join(dir, "bash-env.sh");
    await writeFile(hook, `touch ${path.join(dir, "bash-env-ran")}\n`);
    const inv = localShell(["bash", "-lc", "ls"], { BASH_ENV: hook });
    expect(shell.isMutating(inv)).toBe(true);
    await shell.handle(inv);
    expect(existsSync(path.join(dir, "bash-env-ran"))).toBe(true);
  });
});

/** Leftovers of a failed test must not outlive it. */
function signalIfAlive(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

describe("shell_command handler", () => {
  const handler = new ShellCommandHandler({ timeoutMs: 10_000 });
  const savedShell = process.env["SHELL"];
  /** Runs `fn` with `$SHELL` set to `shell` (undefined: unset). */
  async function withShell<T>(shell: string | undefined, fn: () => T | Promise<T>): Promise<T> {
    if (shell === undefined) delete process.env["SHELL"];
    else process.env["SHELL"] = shell;
    try {
      return await fn();
    } finally {
      if (savedShell === undefined) delete process.env["SHELL"];
      else process.env["SHELL"] = savedShell;
    }
  }

  it("runs the script with the user's shell", async () => {
    const { inv } = invocation(
      { command: "echo one | tr a-z A-Z && echo $((1+2))", login: false },
      { toolName: "shell_command" },
    );
    expect(parts(body(await withShell("/bin/bash", () => handler.handle(inv))))).toEqual({
      exit: "0",
      rest: "Output:\nONE\n3\n",
    });
  });

  it("runs $SHELL with -lc by default and -c when login is false; /bin/bash without $SHELL", async () => {
    const fake = path.join(dir, "fake-shell");
    await writeFile(fake, '#!/bin/sh\nprintf "%s|" "$0" "$@"\n');
    await chmod(fake, 0o755);
    const run = async (args: unknown) =>
      body(await handler.handle(invocation(args, { toolName: "shell_command" }).inv));
    expect(await withShell(fake, () => run({ command: "echo hi" }))).toMatch(
      /\nOutput:\n[^\n]*fake-shell\|-lc\|echo hi\|$/,
    );
    expect(await withShell(fake, () => run({ command: "echo hi", login: false }))).toMatch(
      /\nOutput:\n[^\n]*fake-shell\|-c\|echo hi\|$/,
    );
    expect(userShell({})).toBe("/bin/bash");
    expect(userShell({ SHELL: " " })).toBe("/bin/bash");
    expect(userShell({ SHELL: "/bin/zsh" })).toBe("/bin/zsh");
  });

  it("classifies the script like bash -lc", async () => {
    await withShell("/bin/bash", () => {
      expect(handler.isMutating(invocation({ command: "ls | wc -l" }).inv)).toBe(false);
      expect(handler.isMutating(invocation({ command: "rm -rf x" }).inv)).toBe(true);
    });
    // A shell whose syntax we do not parse is never known-safe.
    await withShell("/usr/bin/fish", () => {
      expect(handler.isMutating(invocation({ command: "ls" }).inv)).toBe(true);
    });
  });
});
