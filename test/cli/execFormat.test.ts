import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { jsonLines, runCli, withTempDir } from "./helpers.js";

/*
 * `toolcall exec --format responses|chat|anthropic` (DESIGN section 13): lines in and out in
 * each provider's shape, detected per line without the flag, and nothing dropped without a
 * word. The real command in a child process, real tools on real files.
 */
const FULL_ACCESS = ["--sandbox", "danger-full-access"];
const line = (v: unknown): string => JSON.stringify(v);

describe("toolcall exec --format", () => {
  it("chat: a completion and a bare tool call in, role tool messages out in call order", async () => {
    await withTempDir(async (dir) => {
      await writeFile(path.join(dir, "a.txt"), "alpha\n");
      const completion = {
        id: "chatcmpl-1",
        object: "chat.completion",
        choices: [
          {
            index: 0,
            finish_reason: "tool_calls",
            message: {
              role: "assistant",
              content: null,
              tool_calls: [
                {
                  id: "call_read",
                  type: "function",
                  function: { name: "read_file", arguments: line({ file_path: path.join(dir, "a.txt") }) },
                },
                {
                  id: "call_patch",
                  type: "function",
                  function: {
                    name: "apply_patch",
                    arguments: line({ input: "*** Begin Patch\n*** Add File: b.txt\n+beta\n*** End Patch" }),
                  },
                },
              ],
            },
          },
        ],
      };
      // Ollama's shape: arguments as an object.
      const ollama = { id: "call_echo", function: { name: "shell", arguments: { command: ["echo", "hi"] } } };
      const input = [line(completion), line({ role: "assistant", content: "Done." }), line(ollama)].join("\n");
      const result = await runCli(["exec", "--format", "chat", ...FULL_ACCESS], { cwd: dir, input });
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      expect(jsonLines(result.stdout)).toEqual([
        { role: "tool", tool_call_id: "call_read", content: "L1: alpha" },
        {
          role: "tool",
          tool_call_id: "call_patch",
          content: expect.stringMatching(
            /^Exit code: 0\nWall time: [\d.]+ seconds\nOutput:\nSuccess\. Updated the following files:\nA b\.txt\n$/,
          ),
        },
        { role: "tool", tool_call_id: "call_echo", content: expect.stringMatching(/Output:\nhi\n$/) },
      ]);
      expect(await readFile(path.join(dir, "b.txt"), "utf8")).toBe("beta\n");
    });
  });

  it("anthropic: a message in, tool_result blocks out, failures marked is_error", async () => {
    await withTempDir(async (dir) => {
      const message = {
        id: "msg_1",
        type: "message",
        role: "assistant",
        content: [
          { type: "text", text: "Listing." },
          { type: "tool_use", id: "toolu_ls", name: "shell", input: { command: ["ls"] } },
          { type: "tool_use", id: "toolu_nope", name: "no_such_tool", input: {} },
        ],
        stop_reason: "tool_use",
      };
      const result = await runCli(["exec", "--format", "anthropic", ...FULL_ACCESS], {
        cwd: dir,
        input: line(message),
      });
      expect(result.stderr).toBe("");
      expect(jsonLines(result.stdout)).toEqual([
        {
          type: "tool_result",
          tool_use_id: "toolu_ls",
          content: expect.stringMatching(/^Exit code: 0\n/),
          is_error: false,
        },
        { type: "tool_result", tool_use_id: "toolu_nope", content: "unsupported call: no_such_tool", is_error: true },
      ]);
    });
  });

  it("responses: shell_call and apply_patch_call answered in their own types; an unknown *_call reported", async () => {
    await withTempDir(async (dir) => {
      const input = [
        line({ type: "shell_call", call_id: "sh", action: { commands: ["echo one", "echo two"] } }),
        line({ type: "browser_call", call_id: "br", action: {} }),
        line({
          type: "apply_patch_call",
          call_id: "ap",
          operation: { type: "create_file", path: "c.txt", diff: "+gamma\n" },
        }),
      ].join("\n");
      const result = await runCli(["exec", "--format", "responses", ...FULL_ACCESS], {
        cwd: dir,
        input,
        env: { SHELL: "/bin/bash" },
      });
      expect(result.code).toBe(0);
      expect(result.stderr).toBe(
        "toolcall exec: line 2: rejected, no output: unsupported item type browser_call (call br): no tool answers it\n",
      );
      expect(jsonLines(result.stdout)).toEqual([
        {
          type: "shell_call_output",
          call_id: "sh",
          output: [
            { stdout: "one\n", stderr: "", outcome: { type: "exit", exit_code: 0 } },
            { stdout: "two\n", stderr: "", outcome: { type: "exit", exit_code: 0 } },
          ],
        },
        {
          type: "apply_patch_call_output",
          call_id: "ap",
          status: "completed",
          output: "Success. Updated the following files:\nA c.txt\n",
        },
      ]);
    });
  });

  it("without --format each line is read in its own shape and answered in it; a misfit line is named", async () => {
    await withTempDir(async (dir) => {
      const input = [
        // The review's reproduction: a Chat tool call used to vanish without a word.
        line({ id: "call_1", type: "function", function: { name: "read_file", arguments: "{}" } }),
        line({ type: "function_call", call_id: "fc", name: "shell", arguments: line({ command: ["echo", "r"] }) }),
        line({ type: "tool_use", id: "toolu_1", name: "shell", input: { command: ["echo", "a"] } }),
      ].join("\n");
      const result = await runCli(["exec", ...FULL_ACCESS], { cwd: dir, input });
      expect(result.stderr).toBe("");
      const [chat, responses, anthropic] = jsonLines(result.stdout);
      expect(chat).toEqual({
        role: "tool",
        tool_call_id: "call_1",
        content: "invalid arguments for read_file: / must have required property 'file_path'",
      });
      expect(responses).toMatchObject({ type: "function_call_output", call_id: "fc" });
      expect(anthropic).toMatchObject({ type: "tool_result", tool_use_id: "toolu_1", is_error: false });

      const misfit = await runCli(["exec", "--format", "chat", ...FULL_ACCESS], {
        cwd: dir,
        input: line({ type: "function_call", call_id: "x", name: "shell", arguments: "{}" }),
      });
      expect(misfit.stderr).toBe(
        "toolcall exec: line 1: expected a Chat Completions assistant message, completion, tool_calls array or tool call\n",
      );
      expect(misfit.stdout).toBe("");
      const bad = await runCli(["exec", "--format", "xml"], { cwd: dir });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--format: expected responses, chat or anthropic, got "xml"');
    });
  });
});
