import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  createTurnContext,
  ReadinessFlag,
  ToolCallRuntime,
  createToolRouter,
  toResponsesTools,
  type ToolEvent,
  type ToolsConfig,
} from "../../../src/index.js";
import { APPLY_PATCH_LARK_GRAMMAR } from "../../../src/handlers/apply_patch/index.js";
import { flush } from "../../support/harness.js";
import { functionCall, patchRun, useTempDir } from "../toolHarness.js";

let dir: string;
useTempDir((d) => (dir = d));

const ADD_HELLO = "*** Begin Patch\n*** Add File: hello.txt\n+Hello, world!\n*** End Patch\n";
const SUCCESS = patchRun("Success. Updated the following files:\nA hello.txt\n");

async function runtimeFor(config: ToolsConfig, turn: { gate?: ReadinessFlag } = {}) {
  const events: ToolEvent[] = [];
  const router = await createToolRouter(config);
  const ctx = createTurnContext({
    cwd: dir,
    onEvent: (e) => events.push(e),
    ...(turn.gate ? { toolCallGate: turn.gate } : {}),
  });
  return { router, runtime: new ToolCallRuntime(router, ctx), events };
}

describe("apply_patch tool", () => {
  it("is a freeform custom tool with Codex's Lark grammar by default, exclusive", async () => {
    const router = await createToolRouter({});
    const configured = router.specs().find((s) => "name" in s.spec && s.spec.name === "apply_patch");
    expect(configured?.supportsParallelToolCalls).toBe(false);
    const tool = toResponsesTools(router.specs()).find((t) => "name" in t && t.name === "apply_patch");
    expect(tool).toEqual({
      type: "custom",
      name: "apply_patch",
      description:
        "The `apply_patch` tool can be used to edit files. This is a FREEFORM tool, so do not wrap the patch in JSON.",
      format: { type: "grammar", syntax: "lark", definition: APPLY_PATCH_LARK_GRAMMAR },
    });
    expect(APPLY_PATCH_LARK_GRAMMAR.startsWith("start: begin_patch hunk+ end_patch\n")).toBe(true);
    expect(router.toolSupportsParallel("apply_patch")).toBe(false);
  });

  it('is a function tool { input } with "function", and absent with false', async () => {
    const fn = toResponsesTools((await createToolRouter({ applyPatch: "function" })).specs()).find(
      (t) => "name" in t && t.name === "apply_patch",
    );
    expect(fn).toMatchObject({
      type: "function",
      strict: false,
      parameters: { type: "object", required: ["input"], additionalProperties: false },
    });
    const none = await createToolRouter({ applyPatch: false });
    expect(none.specs().some((s) => "name" in s.spec && s.spec.name === "apply_patch")).toBe(false);
    await expect(createToolRouter({ applyPatch: "json" as unknown as "function" })).rejects.toThrow(
      'ToolsConfig.applyPatch must be "freeform", "function" or false, got "json"',
    );
  });

  it("answers a custom call with custom_tool_call_output, relative to the turn's cwd", async () => {
    const { runtime } = await runtimeFor({});
    runtime.submit({ type: "custom_tool_call", call_id: "p1", name: "apply_patch", input: ADD_HELLO });
    const [outcome] = await runtime.drainOutcomes();
    expect(outcome?.item).toEqual({ type: "custom_tool_call_output", call_id: "p1", output: SUCCESS });
    expect(outcome?.success).toBe(true);
    expect(await readFile(join(dir, "hello.txt"), "utf8")).toBe("Hello, world!\n");
  });

  it("answers a function call { input } with function_call_output, and checks its arguments", async () => {
    const { runtime } = await runtimeFor({ applyPatch: "function" });
    runtime.submit(functionCall("apply_patch", { input: ADD_HELLO }, "f1"));
    runtime.submit(functionCall("apply_patch", { patch: ADD_HELLO }, "f2"));
    const [good, bad] = await runtime.drainOutcomes();
    expect(good?.item).toEqual({ type: "function_call_output", call_id: "f1", output: SUCCESS });
    expect(bad?.success).toBe(false);
    expect(bad?.item).toMatchObject({ call_id: "f2" });
    expect("output" in bad!.item && bad!.item.output).toMatch(/^invalid arguments for apply_patch: /);
  });

  it("takes a function call even when the freeform form is offered (e.g. from an MCP client)", async () => {
    const { runtime } = await runtimeFor({});
    runtime.submit(functionCall("apply_patch", { input: ADD_HELLO }, "f1"));
    runtime.submit(functionCall("apply_patch", { input: 42 }, "f2"));
    const [good, bad] = await runtime.drainOutcomes();
    expect(good?.item).toEqual({ type: "function_call_output", call_id: "f1", output: SUCCESS });
    expect(bad?.item).toEqual({
      type: "function_call_output",
      call_id: "f2",
      output: "invalid arguments for apply_patch: /input must be a string",
    });
  });

  it("reports a failed patch as a failure output and leaves the tree untouched", async () => {
    await writeFile(join(dir, "a.txt"), "a\n");
    const { runtime } = await runtimeFor({});
    runtime.submit({
      type: "custom_tool_call",
      call_id: "p1",
      name: "apply_patch",
      input: "*** Begin Patch\n*** Add File: b.txt\n+b\n*** Update File: a.txt\n@@\n-zzz\n+y\n*** End Patch",
    });
    const [outcome] = await runtime.drainOutcomes();
    expect(outcome?.success).toBe(false);
    expect(outcome?.item).toEqual({
      type: "custom_tool_call_output",
      call_id: "p1",
      output: `apply_patch verification failed: Failed to find expected lines in ${join(dir, "a.txt")}:\nzzz`,
    });
    await expect(readFile(join(dir, "b.txt"))).rejects.toThrow(/ENOENT/);
  });

  it("is mutating: it waits for the turn's readiness gate", async () => {
    const gate = new ReadinessFlag();
    const token = gate.subscribe();
    const { runtime, events } = await runtimeFor({}, { gate });
    runtime.submit({ type: "custom_tool_call", call_id: "p1", name: "apply_patch", input: ADD_HELLO });
    await flush(20);
    expect(events.some((e) => e.type === "tool_call_begin")).toBe(false);
    await expect(readFile(join(dir, "hello.txt"))).rejects.toThrow(/ENOENT/);
    expect(gate.markReady(token)).toBe(true);
    const [outcome] = await runtime.drainOutcomes();
    expect(outcome?.success).toBe(true);
    expect(await readFile(join(dir, "hello.txt"), "utf8")).toBe("Hello, world!\n");
  });

  it("keeps model order with read_file calls on the same file in one batch", async () => {
    const file = join(dir, "race.txt");
    await writeFile(file, "before\n");
    const { runtime } = await runtimeFor({});
    runtime.submit(functionCall("read_file", { file_path: file }, "r1"));
    runtime.submit({
      type: "custom_tool_call",
      call_id: "p1",
      name: "apply_patch",
      input: "*** Begin Patch\n*** Update File: race.txt\n@@\n-before\n+after\n*** End Patch",
    });
    runtime.submit(functionCall("read_file", { file_path: file }, "r2"));
    const outputs = (await runtime.drain()).map((item) => ("output" in item ? item.output : ""));
    expect(outputs).toEqual([
      "L1: before",
      patchRun("Success. Updated the following files:\nM race.txt\n"),
      "L1: after",
    ]);
  });
});
