import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  createToolRouter,
  createTurnContext,
  ToolCallRuntime,
  type ToolRouter,
  type TurnContext,
} from "../../../src/index.js";
import { processAlive } from "../../../src/process/index.js";
import { createExecEnvironment } from "../../../src/sandbox/index.js";
import { functionCall, patchRun, tempDir } from "../toolHarness.js";

/*
 * exec_command / write_stdin (DESIGN section 15) with real processes: sessions that outlive a
 * call, a real PTY, output returned once, sessions killed by abort, by the cap and by close.
 */
let dir: string;
let cleanup: () => Promise<void>;
let router: ToolRouter;
let turn: TurnContext;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  router = await createToolRouter({ shell: "unified_exec", maxExecSessions: 3 });
  // The tests follow the host's pids of a session's processes: no PID namespace to renumber them.
  turn = createTurnContext({ cwd: dir, environment: await createExecEnvironment({ cwd: dir, pidNamespace: false }) });
});
afterEach(async () => {
  await router.close();
  await cleanup();
});

async function call(name: string, args: unknown, signal?: AbortSignal): Promise<{ text: string; success: boolean }> {
  const runtime = new ToolCallRuntime(router, turn, signal ? { signal } : {});
  runtime.submit(functionCall(name, args));
  const [outcome] = await runtime.drainOutcomes();
  const item = outcome!.item as { output: string };
  return { text: item.output, success: outcome!.success };
}

/** The parts of a unified-exec answer. */
function parse(text: string): { exit?: number; session?: number; tokens: number; output: string } {
  const m =
    /^Chunk ID: [0-9a-f]{6}\nWall time: \d+\.\d{4} seconds\n(?:Process exited with code (-?\d+)\n|Process running with session ID (\d+)\n)?Original token count: (\d+)\nOutput:\n([\s\S]*)$/.exec(
      text,
    );
  expect(m, text).not.toBeNull();
  return {
    ...(m![1] !== undefined && { exit: Number(m![1]) }),
    ...(m![2] !== undefined && { session: Number(m![2]) }),
    tokens: Number(m![3]),
    output: m![4]!,
  };
}

const pidIn = async (file: string): Promise<number> => {
  await vi.waitFor(
    () => {
      expect(existsSync(file)).toBe(true);
    },
    { timeout: 5_000, interval: 20 },
  );
  return Number((await readFile(file, "utf8")).trim());
};

describe("exec_command", () => {
  it("answers a command that ends within the yield with its exit code and no session", async () => {
    const out = parse((await call("exec_command", { cmd: "echo hi; exit 3", login: false })).text);
    expect(out).toEqual({ exit: 3, tokens: 1, output: "hi\n" });
  });

  it("keeps a running process as a session; write_stdin returns only output not returned before", async () => {
    const script = "for i in 1 2 3 4; do echo line$i; sleep 0.3; done";
    const first = parse((await call("exec_command", { cmd: script, login: false, yield_time_ms: 450 })).text);
    expect(first.session).toBeGreaterThanOrEqual(1000);
    expect(first.exit).toBeUndefined();
    const second = parse((await call("write_stdin", { session_id: first.session, yield_time_ms: 5_000 })).text);
    expect(second.exit).toBe(0);
    // Every line exactly once, in order, across the two reads.
    expect((first.output + second.output).split("\n").filter(Boolean)).toEqual(["line1", "line2", "line3", "line4"]);
    expect(second.output).not.toContain("line1");
    // The session ended with its process.
    expect((await call("write_stdin", { session_id: first.session })).text).toBe(
      `write_stdin failed: Unknown process id ${first.session}`,
    );
  });

  it("refuses input to a session without a tty (its stdin is closed)", async () => {
    const first = parse((await call("exec_command", { cmd: "sleep 5", login: false, yield_time_ms: 250 })).text);
    const out = await call("write_stdin", { session_id: first.session, chars: "x\n" });
    expect(out).toMatchObject({
      success: false,
      text: "write_stdin failed: stdin is closed for this session; rerun exec_command with tty=true to keep stdin open",
    });
  });

  it("gives tty: true a real terminal of 24x80, and takes input through write_stdin", async () => {
    const first = parse(
      (await call("exec_command", { cmd: "tty; stty size; cat", login: false, tty: true, yield_time_ms: 1_000 })).text,
    );
    expect(first.output).toMatch(/^\/dev\/pts\/\d+\r\n24 80\r\n$/);
    const echoed = parse(
      (await call("write_stdin", { session_id: first.session, chars: "hello\n", yield_time_ms: 500 })).text,
    );
    // The terminal echoes the line, then cat prints it.
    expect(echoed.output).toBe("hello\r\nhello\r\n");
    const ended = parse(
      (await call("write_stdin", { session_id: first.session, chars: "\u0004", yield_time_ms: 5_000 })).text,
    );
    expect(ended.exit).toBe(0);
  });

  // Skipped only where the system has no python3; the cat session above covers the PTY itself.
  it.skipIf(!existsSync("/usr/bin/python3"))("drives a python3 REPL", async () => {
    const first = parse(
      (await call("exec_command", { cmd: "python3 -q -i", login: false, tty: true, yield_time_ms: 1_500 })).text,
    );
    expect(first.output).toContain(">>> ");
    const two = parse(
      (await call("write_stdin", { session_id: first.session, chars: "print(6*7)\n", yield_time_ms: 1_000 })).text,
    );
    expect(two.output).toContain("42\r\n");
    const bye = parse(
      (await call("write_stdin", { session_id: first.session, chars: "exit()\n", yield_time_ms: 5_000 })).text,
    );
    expect(bye.exit).toBe(0);
  });

  it("kills the process of an exec_command aborted before it returned", async () => {
    const controller = new AbortController();
    const pidFile = path.join(dir, "pid");
    const running = call(
      "exec_command",
      { cmd: `echo $$ > ${pidFile}; exec sleep 30`, login: false },
      controller.signal,
    );
    const pid = await pidIn(pidFile);
    controller.abort();
    // The runtime answers an aborted call at once; the kill is under way by then.
    expect((await running).success).toBe(false);
    await vi.waitFor(
      () => {
        expect(processAlive(pid)).toBe(false);
      },
      { timeout: 3_000, interval: 20 },
    );
  });

  it("kills every session on router.close(), the tty ones included", async () => {
    const pids: number[] = [];
    for (const tty of [false, true]) {
      const pidFile = path.join(dir, `pid-${tty}`);
      parse(
        (
          await call("exec_command", {
            cmd: `echo $$ > ${pidFile}; exec sleep 30`,
            login: false,
            tty,
            yield_time_ms: 250,
          })
        ).text,
      );
      pids.push(await pidIn(pidFile));
    }
    expect(pids.map(processAlive)).toEqual([true, true]);
    await router.close();
    await vi.waitFor(
      () => {
        expect(pids.map(processAlive)).toEqual([false, false]);
      },
      { timeout: 3_000, interval: 20 },
    );
    // A closed router starts no more sessions.
    expect((await call("exec_command", { cmd: "sleep 1", login: false, yield_time_ms: 250 })).success).toBe(false);
  });

  it("closes the least recently used session past the cap", async () => {
    const sessions: number[] = [];
    const pids: number[] = [];
    for (let i = 0; i < 4; i++) {
      const pidFile = path.join(dir, `cap-${i}`);
      sessions.push(
        parse(
          (await call("exec_command", { cmd: `echo $$ > ${pidFile}; exec sleep 30`, login: false, yield_time_ms: 250 }))
            .text,
        ).session!,
      );
      pids.push(await pidIn(pidFile));
    }
    await vi.waitFor(
      () => {
        expect(processAlive(pids[0]!)).toBe(false);
      },
      { timeout: 3_000, interval: 20 },
    );
    expect(pids.slice(1).map(processAlive)).toEqual([true, true, true]);
    expect((await call("write_stdin", { session_id: sessions[0] })).text).toBe(
      `write_stdin failed: Unknown process id ${sessions[0]}`,
    );
  });

  it("bounds 50 MB of output to max_output_tokens and counts what it held", async () => {
    const out = parse(
      (
        await call("exec_command", {
          cmd: "yes abcdefghi | head -c 52428800",
          login: false,
          max_output_tokens: 100,
          yield_time_ms: 20_000,
        })
      ).text,
    );
    expect(out.exit).toBe(0);
    expect(out.tokens).toBe(52428800 / 4);
    expect(Buffer.byteLength(out.output)).toBeLessThan(1_000);
    // Codex 0.169's header over a cut output: the original tokens and lines.
    expect(out.output).toMatch(
      /^Warning: truncated output \(original token count: 13107200\)\nTotal output lines: 5242880\n\nabcdefghi\n[\s\S]*tokens truncated[\s\S]*abcdefghi\n$/,
    );
  });

  it("applies apply_patch run as a command (after `cd DIR &&`) instead of running it", async () => {
    await mkdir(path.join(dir, "sub"));
    const cmd = "cd sub && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch\nEOF\n";
    // Codex 0.171: the command's wall time over the apply_patch tool's answer.
    const out = /^Wall time: \d+\.\d{4} seconds\nOutput:\n([\s\S]*)$/.exec((await call("exec_command", { cmd })).text);
    expect(out?.[1]).toEqual(patchRun("Success. Updated the following files:\nA hello.txt\n"));
    expect(await readFile(path.join(dir, "sub", "hello.txt"), "utf8")).toBe("hi\n");
    const bad = await call("exec_command", {
      cmd: "apply_patch <<'EOF'\n*** Begin Patch\nnonsense\n*** End Patch\nEOF",
    });
    expect(bad.success).toBe(false);
    // Codex 0.171: a patch refused before it ran is answered with the refusal alone.
    expect(bad.text).toMatch(/^apply_patch verification failed: invalid hunk at line 2, /);
  });
});
