import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  collect,
  jsonLines,
  processesWith,
  runCli,
  spawnCli,
  DEMO_SERVER,
  uniqueMarker,
  waitFor,
  withTempDir,
} from "./helpers.js";

function fn(callId: string, name: string, args: unknown): string {
  return JSON.stringify({ type: "function_call", call_id: callId, name, arguments: JSON.stringify(args) });
}

describe("toolcall exec (child process)", () => {
  it("runs function, custom, local_shell and MCP calls; answers in call order; reports bad lines", async () => {
    await withTempDir(async (dir) => {
      await writeFile(path.join(dir, "a.txt"), "alpha\nbeta\n");
      await writeFile(
        path.join(dir, "toolcall.toml"),
        `[mcp_servers.demo]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify([DEMO_SERVER])}\n`,
      );
      const patch = "*** Begin Patch\n*** Add File: b.txt\n+created\n*** End Patch";
      const input = [
        JSON.stringify({ type: "reasoning", id: "rs_1", summary: [] }),
        // Slow first: its output must still come first.
        fn("call_slow", "mcp__demo__slow_review", { topic: "x", delay_ms: 2000 }),
        fn("call_read", "read_file", { file_path: path.join(dir, "a.txt") }),
        "this is not json",
        JSON.stringify({ type: "function_call", name: "read_file", arguments: "{}" }),
        fn("call_unknown", "rm_everything", {}),
        JSON.stringify({ type: "custom_tool_call", call_id: "call_patch", name: "apply_patch", input: patch }),
        JSON.stringify({
          type: "local_shell_call",
          id: "ls_1",
          call_id: "call_local",
          action: { type: "exec", command: ["echo", "hello"] },
        }),
        fn("call_words", "mcp__demo__word_count", { text: "one two three" }),
        "",
        fn("call_read", "read_file", { file_path: path.join(dir, "b.txt") }),
        JSON.stringify({ type: "function_call", call_id: "call_numargs", name: "shell", arguments: 42 }),
        "[1, 2]",
      ].join("\n");
      const events = path.join(dir, "events.jsonl");
      const result = await runCli(["exec", "--events", events], { cwd: dir, input: `${input}\n` });

      expect(result.code).toBe(0);
      const outputs = jsonLines(result.stdout);
      expect(outputs.map((o) => o["call_id"] ?? o["id"])).toEqual([
        "call_slow",
        "call_read",
        "call_unknown",
        "call_patch",
        "call_local",
        "call_words",
        "call_numargs",
      ]);
      const byId = new Map(outputs.map((o) => [String(o["call_id"] ?? o["id"]), o]));
      expect(byId.get("call_slow")).toEqual({
        type: "function_call_output",
        call_id: "call_slow",
        output: "Review of x: main() returns a constant; consider a test.",
      });
      expect(byId.get("call_read")?.["output"]).toBe("L1: alpha\nL2: beta");
      expect(byId.get("call_unknown")?.["output"]).toBe("unsupported call: rm_everything");
      expect(byId.get("call_patch")?.["type"]).toBe("custom_tool_call_output");
      expect(await readFile(path.join(dir, "b.txt"), "utf8")).toBe("created\n");
      expect(byId.get("call_local")?.["type"]).toBe("local_shell_call_output");
      expect(byId.get("call_local")?.["output"]).toMatch(/^Exit code: 0\nWall time: \d+\.\d seconds\nOutput:\nhello\n/);
      expect(byId.get("call_words")?.["output"]).toBe("3 words, 1 lines");
      expect(byId.get("call_numargs")?.["output"]).toBe(
        "failed to parse function arguments: arguments must be a JSON string",
      );

      const lines = result.stderr.split("\n").filter((l) => l.startsWith("toolcall exec: "));
      expect(lines).toEqual([
        expect.stringMatching(/^toolcall exec: line 4: not JSON: /),
        "toolcall exec: line 5: rejected, no output: function_call without call_id",
        "toolcall exec: line 11: rejected, no output: duplicate call id: call_read",
        "toolcall exec: line 12: failed to parse function arguments: arguments must be a JSON string (call call_numargs answered with this error)",
        'toolcall exec: line 13: expected a JSON object with a string "type", got array',
      ]);

      const recorded = jsonLines(await readFile(events, "utf8"));
      const ended = recorded.filter((e) => e["type"] === "tool_call_end").map((e) => e["callId"]);
      expect(new Set(ended)).toEqual(
        new Set(["call_slow", "call_read", "call_unknown", "call_patch", "call_local", "call_words", "call_numargs"]),
      );
      // Calls start as lines arrive: the read began while the slow MCP call still ran. (Its end
      // is not compared: on a machine shared with CPU hogs a whole read can take longer.)
      const at = (type: string, id: string): number =>
        recorded.findIndex((e) => e["type"] === type && e["callId"] === id);
      expect(at("tool_call_begin", "call_read")).toBeGreaterThanOrEqual(0);
      expect(at("tool_call_begin", "call_read")).toBeLessThan(at("tool_call_end", "call_slow"));
      expect(recorded.some((e) => e["type"] === "exec_command_begin" && e["callId"] === "call_local")).toBe(true);
    });
  });

  it('offers exec_command with [tools] shell = "unified_exec" and kills its sessions when the turn ends', async () => {
    await withTempDir(async (dir) => {
      await writeFile(path.join(dir, "toolcall.toml"), '[tools]\nshell = "unified_exec"\nmax_exec_sessions = 4\n');
      const marker = uniqueMarker();
      const input = [
        fn("call_echo", "exec_command", { cmd: "echo hi", login: false }),
        fn("call_bg", "exec_command", { cmd: `exec sleep ${marker}`, login: false, yield_time_ms: 250 }),
      ].join("\n");
      const result = await runCli(["exec", "--sandbox", "danger-full-access"], { cwd: dir, input });
      expect(result.code).toBe(0);
      const [echo, bg] = jsonLines(result.stdout) as Array<{ output: string }>;
      expect(echo?.output).toMatch(/\nProcess exited with code 0\nOriginal token count: 1\nOutput:\nhi\n$/);
      expect(bg?.output).toMatch(/\nProcess running with session ID \d+\n/);
      // The session did not outlive the command.
      expect(await processesWith(marker)).toEqual([]);
    });
  });

  it("reads a file argument and exits 1 on a fatal error after writing every output", async () => {
    await withTempDir(async (dir) => {
      const file = path.join(dir, "turn.jsonl");
      await writeFile(
        file,
        [
          fn("call_echo", "shell", { command: ["echo", "before"] }),
          // A function tool called with a custom payload ends the turn.
          JSON.stringify({ type: "custom_tool_call", call_id: "call_bad", name: "read_file", input: "x" }),
        ].join("\n"),
      );
      const result = await runCli(["exec", file], { cwd: dir });
      expect(result.code).toBe(1);
      const outputs = jsonLines(result.stdout);
      expect(outputs.map((o) => o["call_id"])).toEqual(["call_echo", "call_bad"]);
      expect(outputs[1]).toEqual({
        type: "custom_tool_call_output",
        call_id: "call_bad",
        output: "Fatal error: tool read_file invoked with incompatible payload",
      });
      expect(result.stderr).toContain("fatal error in call call_bad");
    });
  });

  it("on SIGINT mid-turn writes every output, kills the running child (even one ignoring SIGTERM) and exits 130", async () => {
    await withTempDir(async (dir) => {
      const marker = uniqueMarker();
      const child = spawnCli(["exec"], { cwd: dir });
      const done = collect(child);
      child.stdin?.write(`${fn("call_echo", "shell", { command: ["echo", "quick"] })}\n`);
      // The ignored SIGTERM is inherited by the sleep: only the SIGKILL after the grace ends it.
      const script = `trap "" TERM; sleep ${marker}`;
      child.stdin?.write(`${fn("call_sleep", "shell", { command: ["bash", "-c", script] })}\n`);
      // stdin stays open: the model is still "streaming".
      await waitFor(async () => (await processesWith(marker)).length > 0, "the sleep to start");
      const [pid] = await processesWith(marker);
      child.kill("SIGINT");
      const result = await done;

      expect(result.code).toBe(130);
      const outputs = jsonLines(result.stdout);
      expect(outputs.map((o) => o["call_id"])).toEqual(["call_echo", "call_sleep"]);
      expect(outputs[0]?.["output"]).toMatch(/Output:\nquick/);
      expect(outputs[1]?.["output"]).toMatch(/^Wall time: \d+\.\d seconds\naborted by user/);
      expect(result.stderr).toContain("SIGINT: aborting the turn");
      expect(await processesWith(marker)).toEqual([]);
      // Gone, or a zombie waiting for a reaper: either way no longer running.
      const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "gone");
      expect(stat === "gone" || / Z /.test(stat)).toBe(true);
    });
  });

  it("on SIGINT or SIGTERM while an MCP server is still starting, stops it and exits 130 / 143 (exec, tools, serve-mcp)", async () => {
    await withTempDir(async (dir) => {
      const run = async (args: string[], signal: NodeJS.Signals): Promise<void> => {
        const marker = uniqueMarker();
        // Never answers initialize: start-up would wait for its 30 s timeout.
        await writeFile(
          path.join(dir, `${marker}.toml`),
          `[mcp_servers.hang]\ncommand = "bash"\nargs = ["-c", "sleep ${marker}; true"]\n`,
        );
        const child = spawnCli([...args, "--config", `${marker}.toml`], { cwd: dir });
        const done = collect(child);
        await waitFor(async () => (await processesWith(marker)).length > 0, `the server of ${args[0]} to start`);
        child.kill(signal);
        const result = await done;
        expect(result.code, result.stderr).toBe(signal === "SIGTERM" ? 143 : 130);
        expect(result.stderr).toContain(`toolcall ${args[0]}: ${signal}: interrupted`);
        expect(result.stdout).toBe("");
        expect(await processesWith(marker)).toEqual([]);
      };
      await Promise.all([run(["exec"], "SIGINT"), run(["tools"], "SIGTERM"), run(["serve-mcp"], "SIGINT")]);
    });
  });
});
