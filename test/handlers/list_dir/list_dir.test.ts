import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listDirToolFactory } from "../../../src/handlers/list_dir/handler.js";
import { callTool, fromFactory, tempDir } from "../toolHarness.js";

const tools = fromFactory(listDirToolFactory);
const list = (args: unknown) => callTool(tools, "list_dir", args);

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

async function tree(): Promise<void> {
  await mkdir(join(dir, "nested", "deeper"), { recursive: true });
  await writeFile(join(dir, "root.txt"), "root");
  await writeFile(join(dir, "nested", "child.txt"), "child");
  await writeFile(join(dir, "nested", "deeper", "grandchild.txt"), "deep");
}

describe("list_dir (Codex format)", () => {
  it("lists entries sorted, indented by depth, with type suffixes", async () => {
    await tree();
    await writeFile(join(dir, "entry.txt"), "content");
    await symlink(join(dir, "entry.txt"), join(dir, "link"));
    const out = await list({ dir_path: dir, depth: 3 });
    expect(out.success).toBe(true);
    expect(out.text).toBe(
      [
        `Absolute path: ${dir}`,
        "entry.txt",
        "link@",
        "nested/",
        "  child.txt",
        "  deeper/",
        "    grandchild.txt",
        "root.txt",
      ].join("\n"),
    );
  });

  it("respects depth (default 2)", async () => {
    await tree();
    expect((await list({ dir_path: dir, depth: 1 })).text).toBe(`Absolute path: ${dir}\nnested/\nroot.txt`);
    expect((await list({ dir_path: dir })).text).toBe(
      `Absolute path: ${dir}\nnested/\n  child.txt\n  deeper/\nroot.txt`,
    );
  });

  it("paginates in sorted order and says when more entries exist", async () => {
    await mkdir(join(dir, "a"));
    await mkdir(join(dir, "b"));
    await writeFile(join(dir, "a", "a_child.txt"), "a");
    await writeFile(join(dir, "b", "b_child.txt"), "b");
    expect((await list({ dir_path: dir, limit: 2 })).text).toBe(
      `Absolute path: ${dir}\na/\n  a_child.txt\nMore than 2 entries found`,
    );
    expect((await list({ dir_path: dir, offset: 3, limit: 2 })).text).toBe(`Absolute path: ${dir}\nb/\n  b_child.txt`);
  });

  it("caps at 25 entries by default", async () => {
    for (let i = 0; i < 40; i++) await writeFile(join(dir, `file_${String(i).padStart(2, "0")}.txt`), "x");
    const lines = (await list({ dir_path: dir, depth: 1 })).text.split("\n");
    expect(lines).toHaveLength(27);
    expect(lines[1]).toBe("file_00.txt");
    expect(lines.at(-1)).toBe("More than 25 entries found");
  });

  it("lists an empty directory as its path only", async () => {
    expect((await list({ dir_path: dir })).text).toBe(`Absolute path: ${dir}`);
  });

  it.each([
    [{ dir_path: "rel" }, "dir_path must be an absolute path"],
    [{ dir_path: "/", offset: 0 }, "offset must be a 1-indexed entry number"],
    [{ dir_path: "/", limit: 0 }, "limit must be greater than zero"],
    [{ dir_path: "/", depth: 0 }, "depth must be greater than zero"],
  ])("rejects %j", async (args, message) => {
    const out = await list(args);
    expect(out.success).toBe(false);
    expect(out.text).toBe(message);
  });

  it("names an offset past the end, a missing directory and a file", async () => {
    await mkdir(join(dir, "nested"));
    expect((await list({ dir_path: dir, offset: 10, limit: 1 })).text).toBe("offset exceeds directory entry count");
    const missing = join(dir, "missing");
    expect((await list({ dir_path: missing })).text).toBe(`failed to read directory: ${missing} does not exist`);
    const file = join(dir, "f.txt");
    await writeFile(file, "x");
    expect((await list({ dir_path: file })).text).toBe(`failed to read directory: ${file} is not a directory`);
  });
});
