import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpConnectionManager } from "../../src/index.js";
import { call, runtimeFor } from "./helpers.js";

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
  m = McpConnectionManager.start({ fs: { command: process.execPath, args: [FILESYSTEM, dir] } });
  await m.waitForStartup();
}, 15_000);
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
});
