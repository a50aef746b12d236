import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createTurnContext, ToolCallRuntime, ToolRouter } from "../../../src/index.js";
import { functionCall, tempDir } from "../toolHarness.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

it("a read_file submitted after an apply_patch in the same batch sees the patched file", async () => {
  const file = join(dir, "notes.txt");
  await writeFile(file, "before\n");
  const router = await ToolRouter.fromConfig({ shell: false });
  const runtime = new ToolCallRuntime(router, createTurnContext({ cwd: dir }));
  const patch = "*** Begin Patch\n*** Update File: notes.txt\n-before\n+after\n*** End Patch\n";

  // Shared reads around an exclusive patch: the lock keeps model order for conflicting calls.
  runtime.submit(functionCall("read_file", { file_path: file }, "read-before"));
  runtime.submit({ type: "custom_tool_call", call_id: "patch", name: "apply_patch", input: patch });
  runtime.submit(functionCall("read_file", { file_path: file }, "read-after"));
  const [before, patched, after] = await runtime.drainOutcomes();

  expect(before!.item).toEqual({ type: "function_call_output", call_id: "read-before", output: "L1: before" });
  expect(patched!.success).toBe(true);
  expect(patched!.item.type).toBe("custom_tool_call_output");
  expect(after!.item).toEqual({ type: "function_call_output", call_id: "read-after", output: "L1: after" });
  expect(await readFile(file, "utf8")).toBe("after\n");
});
