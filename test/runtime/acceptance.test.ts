import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { outputCallId, type ToolHandler, type UnknownItem } from "../../src/index.js";
import { fc, makeRuntime, text } from "../support/harness.js";

const echo: ToolHandler = {
  kind: "function",
  matchesKind: (p) => p.kind === "function" || p.kind === "custom" || p.kind === "local_shell",
  handle: async (inv) => ({ kind: "function", body: `${inv.toolName}:${JSON.stringify(inv.args)}` }),
};

function fixture(name: string): { items: UnknownItem[]; badLines: string[] } {
  const path = fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
  const items: UnknownItem[] = [];
  const badLines: string[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line.trim()) continue;
    try {
      items.push(JSON.parse(line) as UnknownItem);
    } catch {
      badLines.push(line);
    }
  }
  return { items, badLines };
}

describe("accepting items", () => {
  it("answers each hostile fixture item that carries a call id exactly once, rejects the rest", async () => {
    const { items, badLines } = fixture("responses-bad.jsonl");
    expect(badLines).toHaveLength(1); // the line that is not JSON never reaches the runtime
    const { runtime, events } = makeRuntime([
      {
        name: "read_file",
        handler: echo,
        parallel: true,
        parameters: {
          type: "object",
          properties: { file_path: { type: "string" } },
          required: ["file_path"],
          additionalProperties: false,
        },
      },
      { name: "update_plan", handler: echo },
      { name: "shell", handler: echo, parallel: true },
      { name: "list_dir", handler: echo, parallel: true },
      { name: "local_shell", handler: echo, parallel: true },
    ]);
    for (const item of items) runtime.submit(item);
    const outputs = await runtime.drain();
    const byId = new Map(outputs.map((o) => [outputCallId(o), text(o)]));
    expect(outputs.map(outputCallId)).toEqual([
      "call_badjson",
      "call_emptyargs",
      "call_numargs",
      "call_unknown",
      "call_schema",
      "call_custom_unknown",
      "call_list",
      "call_ns",
    ]);
    // Its one missing final brace is repaired (DESIGN section 18), and the model is told.
    expect(byId.get("call_badjson")).toBe(
      'note: arguments were repaired: added the missing closing brace\nread_file:{"file_path":"/workspace/a.txt"}',
    );
    expect(byId.get("call_emptyargs")).toBe("update_plan:{}");
    expect(byId.get("call_numargs")).toBe("failed to parse function arguments: arguments must be a JSON string");
    expect(byId.get("call_unknown")).toBe("unsupported call: rm_everything");
    expect(byId.get("call_schema")).toBe(
      "invalid arguments for read_file: /surprise is not an allowed property; /file_path must be string",
    );
    expect(byId.get("call_schema")).not.toContain("12345");
    expect(byId.get("call_custom_unknown")).toBe("unsupported custom tool call: not_a_tool");
    expect(outputs.find((o) => outputCallId(o) === "call_custom_unknown")!.type).toBe("custom_tool_call_output");
    expect(byId.get("call_ns")).toBe("unsupported call: mcp__everything__echo");

    const rejected = events.filter((e) => e.type === "tool_call_rejected");
    expect(rejected.map((e) => (e.type === "tool_call_rejected" ? e.reason : ""))).toEqual([
      "function_call without call_id",
      "LocalShellCall without call_id or id",
    ]);
    // Unknown item types are ignored without a rejection.
    expect(rejected).toHaveLength(2);
  });

  it("rejects a duplicate call id without a second output, across drains too", async () => {
    const { runtime, events } = makeRuntime([{ name: "t", handler: echo, parallel: true }]);
    runtime.submit(fc("same", "t", '{"n":1}'));
    runtime.submit(fc("same", "t", '{"n":2}'));
    expect((await runtime.drain()).map(text)).toEqual(['t:{"n":1}']);
    runtime.submit(fc("same", "t", '{"n":3}'));
    expect(await runtime.drain()).toEqual([]);
    const rejected = events.filter((e) => e.type === "tool_call_rejected");
    expect(rejected).toHaveLength(2);
    expect(rejected[0]).toMatchObject({ callId: "same", toolName: "t", reason: "duplicate call id: same" });
  });

  it("logs a finished call at debug while the logger is at debug, the level read per call", async () => {
    const lines: string[] = [];
    const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(line) });
    const { runtime } = makeRuntime([{ name: "t", handler: echo, parallel: true }], { turn: { logger } });
    runtime.submit(fc("a", "t"));
    await runtime.drain();
    logger.level = "debug";
    runtime.submit(fc("b", "t"));
    await runtime.drain();
    logger.level = "warn";
    runtime.submit(fc("c", "t"));
    await runtime.drain();
    const finished = lines
      .map((line) => JSON.parse(line) as { msg: string; callId: string })
      .filter((l) => l.msg === "tool call finished");
    expect(finished.map((l) => l.callId)).toEqual(["b"]);
  });

  it("answers a local_shell_call with local_shell_call_output keyed by call_id, else id", async () => {
    const { runtime } = makeRuntime([{ name: "local_shell", handler: echo, parallel: true }]);
    runtime.submit({ type: "local_shell_call", call_id: "c1", id: "ls_1", action: { type: "exec", command: ["ls"] } });
    runtime.submit({ type: "local_shell_call", id: "ls_2", action: { type: "exec", command: ["pwd"], timeout_ms: 5 } });
    const out = await runtime.drain();
    expect(out).toEqual([
      { type: "local_shell_call_output", id: "c1", output: 'local_shell:{"command":["ls"]}' },
      { type: "local_shell_call_output", id: "ls_2", output: 'local_shell:{"command":["pwd"],"timeoutMs":5}' },
    ]);
  });

  it("answers a local_shell_call with a malformed action instead of dropping it", async () => {
    const { runtime } = makeRuntime([{ name: "local_shell", handler: echo, parallel: true }]);
    runtime.submit({ type: "local_shell_call", call_id: "c1", action: { type: "exec", command: "ls" } });
    expect(await runtime.drain()).toEqual([
      {
        type: "local_shell_call_output",
        id: "c1",
        output: "local_shell_call action.command must be a non-empty array of strings",
      },
    ]);
  });

  it("names a namespaced call {namespace}__{name}", async () => {
    const { runtime } = makeRuntime([{ name: "mcp__srv__echo", handler: echo, parallel: true }]);
    runtime.submit({ ...fc("n", "echo", '{"a":1}'), namespace: "mcp__srv" });
    expect((await runtime.drain()).map(text)).toEqual(['mcp__srv__echo:{"a":1}']);
  });

  it("reports a namespaced item that cannot become a call under its full name", async () => {
    const { runtime, events } = makeRuntime([]);
    expect(
      runtime.submit({ type: "function_call", call_id: "n", name: "echo", namespace: "mcp__srv", arguments: 7 }),
    ).toEqual({
      accepted: true,
      callId: "n",
      reason: "failed to parse function arguments: arguments must be a JSON string",
    });
    expect(runtime.submit({ type: "custom_tool_call", name: "echo", namespace: "ns", input: "x" })).toEqual({
      accepted: false,
      reason: "custom_tool_call without call_id",
    });
    await runtime.drain();
    expect(events.find((e) => e.type === "tool_call_end")).toMatchObject({ callId: "n", toolName: "mcp__srv__echo" });
    expect(events.find((e) => e.type === "tool_call_rejected")).toMatchObject({ callId: "", toolName: "ns__echo" });
  });

  it("submit says what it did with each item", async () => {
    const { runtime } = makeRuntime([{ name: "t", handler: echo }]);
    expect(runtime.submit({ type: "message", role: "assistant", content: [] })).toEqual({ accepted: false });
    expect(runtime.submit(fc("a", "t"))).toEqual({ accepted: true, callId: "a" });
    // The same call again is replayed (DESIGN section 17); another call under its id is rejected.
    expect(runtime.submit(fc("a", "t"))).toEqual({ accepted: true, callId: "a" });
    expect(runtime.submit(fc("a", "t", '{"other":1}'))).toEqual({
      accepted: false,
      callId: "a",
      reason: "duplicate call id: a",
    });
    expect(runtime.submit({ type: "local_shell_call", action: { type: "exec", command: ["ls"] } })).toEqual({
      accepted: false,
      reason: "LocalShellCall without call_id or id",
    });
    await runtime.drain();
  });

  it("never throws from submit, whatever it is given", async () => {
    const { runtime } = makeRuntime([{ name: "t", handler: echo }]);
    for (const junk of [
      null,
      undefined,
      42,
      "str",
      [],
      { type: 7 },
      { type: "function_call" },
      { type: "function_call", call_id: "x" },
    ]) {
      expect(() => runtime.submit(junk as unknown as UnknownItem)).not.toThrow();
    }
    expect((await runtime.drain()).map(text)).toEqual(["function_call without a tool name"]);
  });

  it("ignores items that are not tool calls: messages, reasoning, hosted web search", async () => {
    const { items } = fixture("responses-turn.jsonl");
    const { runtime, events } = makeRuntime([]);
    for (const item of items.filter((i) => !i.type.endsWith("call") || i.type === "web_search_call")) {
      runtime.submit(item);
    }
    expect(await runtime.drain()).toEqual([]);
    expect(events).toEqual([]);
  });

  it("rejects, with an event and a log line naming its type, a *_call item no tool answers; hosted calls stay ignored", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = pino(
      { level: "warn" },
      { write: (l: string) => lines.push(JSON.parse(l) as Record<string, unknown>) },
    );
    const { runtime, events } = makeRuntime([{ name: "t", handler: echo }], { turn: { logger } });
    const future = { type: "browser_call", call_id: "b1", action: { url: "https://example.com" } };
    expect(runtime.submit(future)).toEqual({
      accepted: false,
      reason: "unsupported item type browser_call (call b1): no tool answers it",
    });
    expect(runtime.submit({ type: "computer_call", call_id: "hosted", action: {} })).toEqual({ accepted: false });
    for (const hosted of ["web_search_call", "file_search_call", "mcp_call", "image_generation_call"]) {
      runtime.submit({ type: hosted, id: "h" });
    }
    expect(await runtime.drain()).toEqual([]);
    expect(events).toEqual([
      {
        type: "tool_call_rejected",
        callId: "",
        toolName: "browser_call",
        reason: "unsupported item type browser_call (call b1): no tool answers it",
      },
    ]);
    expect(lines).toEqual([
      expect.objectContaining({ msg: "tool call rejected", toolName: "browser_call", reason: expect.any(String) }),
    ]);
  });

  it("emits begin and end once per accepted call; a throwing listener changes nothing", async () => {
    const seen: string[] = [];
    const { runtime } = makeRuntime([{ name: "t", handler: echo, parallel: true }], {
      turn: {
        onEvent: (e) => {
          seen.push(`${e.type}:${e.callId}`);
          throw new Error("listener bug");
        },
      },
    });
    runtime.submit(fc("a", "t"));
    runtime.submit(fc("b", "nope"));
    const out = await runtime.drainOutcomes();
    expect(out.map((o) => o.success)).toEqual([true, false]);
    expect(seen.filter((s) => s.endsWith(":a"))).toEqual(["tool_call_begin:a", "tool_call_end:a"]);
    expect(seen.filter((s) => s.endsWith(":b"))).toEqual(["tool_call_end:b"]);
  });
});
