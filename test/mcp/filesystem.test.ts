import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpConnectionManager } from "../../src/index.js";
import { call, eventually, runtimeFor } from "./helpers.js";

const FILESYSTEM = fileURLToPath(
  new URL("../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", import.meta.url),
);
// A 1x1 PNG, padded past a few kB as real pictures are, so a cut JSON text would show.
const PNG = Buffer.concat([
  Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
    "base64",
  ),
  Buffer.alloc(12_000, 7),
]);

let dir: string;
let m: McpConnectionManager;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tc-fs-"));
  writeFileSync(join(dir, "pic.png"), PNG);
  // No directory on the command line: the server takes the client's roots as its allowed directories.
  m = McpConnectionManager.start({ fs: { command: process.execPath, args: [FILESYSTEM] } }, { roots: [dir] });
  await m.waitForStartup();
  // The server asks for the roots after it started: wait until it has them.
  await eventually(
    async () =>
      ((await m.callTool("fs", "list_allowed_directories", {})).content[0] as { text: string }).text.includes(
        realpathSync(dir),
      ),
    "the client's root allowed",
  );
});
afterAll(async () => {
  await m.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("@modelcontextprotocol/server-filesystem", () => {
  it("read_media_file reaches the model as input_image beside its structured JSON", async () => {
    const { runtime } = await runtimeFor(m);
    runtime.submit(call("img", "mcp__fs__read_media_file", { path: join(dir, "pic.png") }));
    const [out] = (await runtime.drain()) as Array<{ output: unknown }>;
    const items = out?.output as Array<{ type: string; text?: string; image_url?: string }>;
    expect(Array.isArray(items)).toBe(true);
    const image = items.find((i) => i.type === "input_image");
    expect(image?.image_url).toBe(`data:image/png;base64,${PNG.toString("base64")}`);
    // The structured JSON stays, without a second copy of the picture's bytes.
    const text = items.find((i) => i.type === "input_text")?.text ?? "";
    expect(JSON.parse(text)).toEqual({ content: [{ type: "image", data: "[image]", mimeType: "image/png" }] });
  });

  it("takes its allowed directories from the client's roots, and follows setRoots", async () => {
    const other = mkdtempSync(join(tmpdir(), "tc-fs-other-"));
    try {
      writeFileSync(join(other, "note.txt"), "other root");
      const allowed = async (): Promise<string> =>
        ((await m.callTool("fs", "list_allowed_directories", {})).content[0] as { text: string }).text;
      expect(await allowed()).toContain(realpathSync(dir));
      await m.setRoots([other]);
      await eventually(async () => (await allowed()).includes(realpathSync(other)), "the new root allowed");
      expect(await allowed()).not.toContain(realpathSync(dir));
      const read = await m.callTool("fs", "read_text_file", { path: join(other, "note.txt") });
      expect(read.isError).not.toBe(true);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
