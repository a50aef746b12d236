import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createToolRouter, specName, toResponsesTools } from "../../src/index.js";
import { callRouter, useTempDir } from "../handlers/toolHarness.js";
import { withoutDeliberate } from "./codexSpecs.js";
import { WORKSPACE_FILES } from "./corpus.js";
import { CODEX_FIXTURES } from "./codexBinary.js";

/**
 * The specs Codex 0.171 offered `codex exec` (captured from the binary by the mock server),
 * but its hosted `tool_search` (ours only when MCP tools are deferred, docs/parity.md).
 */
const CODEX_TOOLS = (
  JSON.parse(readFileSync(new URL("tools.json", CODEX_FIXTURES), "utf8")) as Array<Record<string, unknown>>
).filter((t) => t.type === "function" || t.type === "custom");

let dir: string;
useTempDir((d) => (dir = d));

describe('ToolsConfig.preset: "codex"', () => {
  it("offers exactly Codex 0.171's default tools", async () => {
    const router = await createToolRouter({ preset: "codex" });
    expect(router.specs().map((s) => specName(s.spec))).toEqual([
      "exec_command",
      "write_stdin",
      "request_user_input",
      "apply_patch",
      "view_image",
      "update_plan",
    ]);
    await router.close();
  });

  it("words every spec as Codex 0.171 does (test_sync_tool included), but for what DESIGN leaves out", async () => {
    const router = await createToolRouter({ preset: "codex", testSyncTool: true });
    const ours = toResponsesTools(router.specs().map((s) => s.spec)) as unknown as Array<Record<string, unknown>>;
    await router.close();
    expect(CODEX_TOOLS.map((t) => t.name)).toEqual([
      "exec_command",
      "write_stdin",
      "request_user_input",
      "apply_patch",
      "test_sync_tool",
      "view_image",
    ]);
    for (const spec of CODEX_TOOLS) {
      expect(withoutDeliberate(ours.find((t) => t.name === spec.name))).toEqual(withoutDeliberate(spec));
    }
  });

  it("lets keys given explicitly win over the preset's", async () => {
    const router = await createToolRouter({ preset: "codex", requestUserInput: false, readFile: true });
    const names = router.specs().map((s) => specName(s.spec));
    expect(names).toContain("read_file");
    expect(names).toContain("exec_command");
    expect(names).not.toContain("request_user_input");
    await router.close();
    await expect(createToolRouter({ preset: "claude" as "codex" })).rejects.toThrow(
      'ToolsConfig.preset must be "codex", got "claude"',
    );
  });

  it("asks for images at detail original, as Codex 0.171 does", async () => {
    await writeFile(join(dir, "img.png"), WORKSPACE_FILES["img.png"]!);
    const router = await createToolRouter({ preset: "codex" });
    const out = await callRouter(router, "view_image", { path: "img.png" }, { cwd: dir });
    expect(out.item).toMatchObject({ output: [{ type: "input_image", detail: "original" }] });
    await router.close();
    const plain = await createToolRouter({});
    expect((await callRouter(plain, "view_image", { path: "img.png" }, { cwd: dir })).item).toMatchObject({
      output: [{ type: "input_image", image_url: expect.stringMatching(/^data:image\/png;base64,/) }],
    });
    expect(
      JSON.stringify((await callRouter(plain, "view_image", { path: "img.png" }, { cwd: dir })).item),
    ).not.toContain("detail");
    await plain.close();
    await expect(createToolRouter({ imageDetail: "huge" as "low" })).rejects.toThrow(
      'ToolsConfig.imageDetail must be "auto", "low", "high" or "original", got "huge"',
    );
  });
});
