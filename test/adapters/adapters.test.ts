import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  createToolRouter,
  createTurnContext,
  fromAnthropic,
  fromChatCompletions,
  toAnthropicToolResults,
  toChatCompletionsMessages,
  ToolCallRuntime,
  type ChatToolCall,
  type ResponseItem,
  type ToolRouter,
  type UnknownItem,
} from "../../src/index.js";
import * as recorded from "../fixtures/providers.js";
import { useTempDir } from "../handlers/toolHarness.js";

/*
 * The provider adapters (DESIGN section 13) on recorded payloads in each provider's real shape
 * (test/fixtures/providers.ts, typed with the SDKs' own types), through the real built-in
 * tools on real files: calls in, every call answered in the provider's own shape, in order.
 */
let dir: string;
let router: ToolRouter;
useTempDir((d) => (dir = d));
beforeEach(async () => {
  vi.stubEnv("SHELL", "/bin/bash");
  await writeFile(path.join(dir, "notes.txt"), "remember the milk\n");
  router = await createToolRouter({});
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await router.close();
});

/** A recorded payload with `/workspace` standing for this test's directory. */
const inWorkspace = <T>(payload: T): T => JSON.parse(JSON.stringify(payload).replaceAll("/workspace", dir)) as T;

async function run(items: ReadonlyArray<ResponseItem | UnknownItem>) {
  const runtime = new ToolCallRuntime(router, createTurnContext({ cwd: dir }));
  for (const item of items) runtime.submit(item);
  return runtime.drainOutcomes();
}

// A 1×1 PNG.
const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

describe("Chat Completions", () => {
  it("runs a recorded completion's tool calls and answers each with a tool message, in order", async () => {
    const message = inWorkspace(recorded.chatCompletion).choices[0]!.message;
    const items = fromChatCompletions(message);
    expect(items.map((i) => [i.type, i.call_id, i.name])).toEqual([
      ["function_call", "call_Zb0Kp7JX3pD1cVr9qYq2u8Jm", "read_file"],
      ["function_call", "call_8mS2d4VbNn0QeW6tY1xK3pLa", "shell"],
      ["custom_tool_call", "call_q1W9eR7tY5uI3oP0aS8dF6gH", "apply_patch"],
    ]);
    const replies = toChatCompletionsMessages(await run(items));
    expect(replies).toEqual([
      { role: "tool", tool_call_id: "call_Zb0Kp7JX3pD1cVr9qYq2u8Jm", content: "L1: remember the milk" },
      {
        role: "tool",
        tool_call_id: "call_8mS2d4VbNn0QeW6tY1xK3pLa",
        content: expect.stringMatching(/^Exit code: 0\nWall time: [\d.]+ seconds\nOutput:\nhello from chat\n$/),
      },
      {
        role: "tool",
        tool_call_id: "call_q1W9eR7tY5uI3oP0aS8dF6gH",
        // Codex 0.169's apply_patch answer: a run, then the summary.
        content: expect.stringMatching(
          /^Exit code: 0\nWall time: [\d.]+ seconds\nOutput:\nSuccess\. Updated the following files:\nA from-chat\.txt\n$/,
        ),
      },
    ]);
    expect(await readFile(path.join(dir, "from-chat.txt"), "utf8")).toBe("written by a custom tool call\n");
    // The next request: every tool_call of the assistant message answered exactly once.
    const asked = (message.tool_calls ?? []).map((c) => c.id);
    expect(replies.map((r) => (r.role === "tool" ? r.tool_call_id : ""))).toEqual(asked);
  });

  it("images follow every tool message in one user message of image_url parts", async () => {
    await writeFile(path.join(dir, "dot.png"), Buffer.from(PNG_BASE64, "base64"));
    const calls: ChatToolCall[] = [
      { id: "img", type: "function", function: { name: "view_image", arguments: '{"path":"dot.png"}' } },
      {
        id: "txt",
        type: "function",
        function: { name: "read_file", arguments: JSON.stringify({ file_path: `${dir}/notes.txt` }) },
      },
    ];
    const replies = toChatCompletionsMessages(await run(fromChatCompletions({ tool_calls: calls })));
    expect(replies).toEqual([
      { role: "tool", tool_call_id: "img", content: "[1 image(s) in the next user message]" },
      { role: "tool", tool_call_id: "txt", content: "L1: remember the milk" },
      {
        role: "user",
        content: [
          { type: "text", text: "Image output of tool call img:" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
        ],
      },
    ]);
  });

  it("takes what Chat-compatible servers send; names what it cannot take; the router names what is missing", async () => {
    // Ollama sends arguments as an object, and some servers leave out `type`.
    const lenient = fromChatCompletions([
      { id: "o1", function: { name: "read_file", arguments: { file_path: "a.txt" } } } as unknown as ChatToolCall,
    ]);
    expect(lenient).toEqual([
      { type: "function_call", call_id: "o1", name: "read_file", arguments: '{"file_path":"a.txt"}' },
    ]);
    expect(() => fromChatCompletions([{ id: "x", type: "retrieval" } as unknown as ChatToolCall])).toThrow(
      'tool_calls[0].type: expected "function" or "custom", got "retrieval"',
    );
    expect(() => fromChatCompletions([null as unknown as ChatToolCall])).toThrow("tool_calls[0]: expected an object");
    expect(fromChatCompletions({ tool_calls: null })).toEqual([]);

    const runtime = new ToolCallRuntime(router, createTurnContext({ cwd: dir }));
    const [noId] = fromChatCompletions([
      { type: "function", function: { name: "read_file", arguments: "{}" } },
    ] as never);
    expect(runtime.submit(noId!)).toEqual({ accepted: false, reason: "function_call without call_id" });
  });
});

describe("Anthropic Messages", () => {
  it("runs a recorded message's tool_use blocks and answers each with a tool_result block", async () => {
    const message = inWorkspace(recorded.anthropicMessage);
    const items = fromAnthropic(message);
    expect(fromAnthropic(message.content)).toEqual(items);
    expect(items).toEqual([
      {
        type: "function_call",
        call_id: "toolu_01A09q90qw90lq917835lq9",
        name: "read_file",
        arguments: JSON.stringify({ file_path: `${dir}/notes.txt` }),
      },
      {
        type: "function_call",
        call_id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
        name: "shell",
        arguments: '{"command":["ls"]}',
      },
    ]);
    const failing = { type: "function_call", call_id: "toolu_bad", name: "no_such_tool", arguments: "{}" };
    expect(toAnthropicToolResults(await run([...items, failing]))).toEqual([
      {
        type: "tool_result",
        tool_use_id: "toolu_01A09q90qw90lq917835lq9",
        content: "L1: remember the milk",
        is_error: false,
      },
      {
        type: "tool_result",
        tool_use_id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
        content: expect.stringMatching(/^Exit code: 0\n[\s\S]*Output:\nnotes\.txt\n$/),
        is_error: false,
      },
      { type: "tool_result", tool_use_id: "toolu_bad", content: "unsupported call: no_such_tool", is_error: true },
    ]);
  });

  it("images become image blocks in the tool_result: base64 for data URLs, url for web addresses", async () => {
    await writeFile(path.join(dir, "dot.png"), Buffer.from(PNG_BASE64, "base64"));
    const [result] = toAnthropicToolResults(
      await run(fromAnthropic([{ type: "tool_use", id: "t1", name: "view_image", input: { path: "dot.png" } }])),
    );
    expect(result).toEqual({
      type: "tool_result",
      tool_use_id: "t1",
      content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: PNG_BASE64 } }],
      is_error: false,
    });
    const mixed = {
      type: "function_call_output" as const,
      call_id: "m",
      output: [
        { type: "input_text" as const, text: "two pictures" },
        { type: "input_image" as const, image_url: "https://example.com/a.jpg" },
        { type: "input_image" as const, image_url: "data:image/bmp;base64,Qk0=" },
      ],
    };
    expect(toAnthropicToolResults([mixed])[0]!.content).toEqual([
      { type: "text", text: "two pictures" },
      { type: "image", source: { type: "url", url: "https://example.com/a.jpg" } },
      { type: "text", text: "[image omitted: Anthropic accepts JPEG, PNG, GIF or WebP images, got image/bmp]" },
    ]);
  });
});

describe("Responses", () => {
  it("answers recorded shell_call and apply_patch_call items in their own output types", async () => {
    const outcomes = await run(recorded.responsesOutput as unknown as UnknownItem[]);
    expect(outcomes.map((o) => o.item)).toEqual([
      {
        type: "shell_call_output",
        call_id: "call_shell_5f7c2a",
        max_output_length: 4096,
        output: [
          { stdout: "one\n", stderr: "", outcome: { type: "exit", exit_code: 0 } },
          { stdout: "", stderr: "two\n", outcome: { type: "exit", exit_code: 4 } },
        ],
      },
      {
        type: "apply_patch_call_output",
        call_id: "call_patch_9d1e4b",
        status: "completed",
        output: "Success. Updated the following files:\nA from-responses.txt\n",
      },
    ]);
    expect(await readFile(path.join(dir, "from-responses.txt"), "utf8")).toBe("created by apply_patch_call\n");
    // The same outputs for a Chat or Anthropic conversation: text, failures marked.
    expect(toAnthropicToolResults(outcomes).map((r) => [r.tool_use_id, r.is_error])).toEqual([
      ["call_shell_5f7c2a", true],
      ["call_patch_9d1e4b", false],
    ]);
    expect(toChatCompletionsMessages(outcomes.map((o) => o.item))[0]).toEqual({
      role: "tool",
      tool_call_id: "call_shell_5f7c2a",
      content: "[exit code 0]\none\n\n[exit code 4]\nstderr:\ntwo\n",
    });
  });
});
