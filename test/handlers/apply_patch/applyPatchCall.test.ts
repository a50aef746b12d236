import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { applyPatchToolFactory } from "../../../src/handlers/apply_patch/index.js";
import { fromFactory, runtimeOf, useTempDir } from "../toolHarness.js";

/*
 * The Responses API's `apply_patch_call` item (DESIGN section 13): a create/update/delete
 * operation with a V4A diff, applied by the registered apply_patch handler (whatever form the
 * tool was offered in) to real files, answered with `apply_patch_call_output`.
 */
let dir: string;
useTempDir((d) => (dir = d));

const patchCall = (callId: string, operation: Record<string, unknown>) => ({
  type: "apply_patch_call",
  id: `apc_${callId}`,
  call_id: callId,
  status: "completed",
  operation,
});

describe("apply_patch_call", () => {
  it.each(["freeform", "function"] as const)(
    "creates, updates and deletes files in call order (apply_patch offered as %s)",
    async (applyPatch) => {
      await writeFile(path.join(dir, "old.txt"), "bye\n");
      await writeFile(path.join(dir, "app.py"), "def greet():\n    print('Hi')\n    return 1\n");
      const { runtime } = runtimeOf(fromFactory(applyPatchToolFactory, { applyPatch }), { cwd: dir });
      runtime.submit(patchCall("c1", { type: "create_file", path: "src/hello.txt", diff: "+Hello\n+world\n" }));
      runtime.submit(
        patchCall("c2", {
          type: "update_file",
          path: "app.py",
          diff: "@@ def greet():\n-    print('Hi')\n+    print('Hello, world!')\n     return 1\n",
        }),
      );
      runtime.submit(patchCall("c3", { type: "delete_file", path: "old.txt" }));
      expect(await runtime.drain()).toEqual([
        {
          type: "apply_patch_call_output",
          call_id: "c1",
          status: "completed",
          output: "Success. Updated the following files:\nA src/hello.txt\n",
        },
        {
          type: "apply_patch_call_output",
          call_id: "c2",
          status: "completed",
          output: "Success. Updated the following files:\nM app.py\n",
        },
        {
          type: "apply_patch_call_output",
          call_id: "c3",
          status: "completed",
          output: "Success. Updated the following files:\nD old.txt\n",
        },
      ]);
      expect(await readFile(path.join(dir, "src/hello.txt"), "utf8")).toBe("Hello\nworld\n");
      expect(await readFile(path.join(dir, "app.py"), "utf8")).toBe(
        "def greet():\n    print('Hello, world!')\n    return 1\n",
      );
      expect(existsSync(path.join(dir, "old.txt"))).toBe(false);
    },
  );

  it("a diff that does not apply fails with status failed, the reason, and no file touched", async () => {
    await writeFile(path.join(dir, "app.py"), "x = 1\n");
    const { runtime } = runtimeOf(fromFactory(applyPatchToolFactory, {}), { cwd: dir });
    runtime.submit(patchCall("u", { type: "update_file", path: "app.py", diff: "@@\n-y = 2\n+y = 3\n" }));
    runtime.submit(patchCall("d", { type: "delete_file", path: "missing.txt" }));
    runtime.submit(patchCall("t", { type: "rename_file", path: "app.py" }));
    const outcomes = await runtime.drainOutcomes();
    expect(outcomes.map((o) => [o.success, o.item.type, (o.item as { status: string }).status])).toEqual([
      [false, "apply_patch_call_output", "failed"],
      [false, "apply_patch_call_output", "failed"],
      [false, "apply_patch_call_output", "failed"],
    ]);
    const texts = outcomes.map((o) => (o.item as { output: string }).output);
    expect(texts[0]).toMatch(/Failed to find expected lines in .*app\.py:\ny = 2/);
    expect(texts[1]).toMatch(/missing\.txt/);
    expect(texts[2]).toBe(
      'apply_patch_call operation.type must be create_file, update_file or delete_file, got "rename_file"',
    );
    expect(await readFile(path.join(dir, "app.py"), "utf8")).toBe("x = 1\n");
  });

  it("without an apply_patch tool the call is still answered, in its own output type", async () => {
    const { runtime } = runtimeOf([], { cwd: dir });
    runtime.submit(patchCall("n", { type: "create_file", path: "a.txt", diff: "+a\n" }));
    expect(await runtime.drain()).toEqual([
      { type: "apply_patch_call_output", call_id: "n", status: "failed", output: "unsupported call: apply_patch" },
    ]);
    expect(existsSync(path.join(dir, "a.txt"))).toBe(false);
  });
});
