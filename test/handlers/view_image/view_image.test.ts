import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { VIEW_IMAGE_SPEC, ViewImageHandler, viewImageToolFactory } from "../../../src/handlers/view_image/handler.js";
import { callTool, fromFactory, tempDir } from "../toolHarness.js";

const tools = fromFactory(viewImageToolFactory);

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

const samples: Array<[string, string, Buffer]> = [
  [
    "png",
    "image/png",
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]),
  ],
  ["jpg", "image/jpeg", Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46])],
  ["gif", "image/gif", Buffer.from("GIF89a\x01\x00\x01\x00\x00\x00\x00;", "latin1")],
  ["webp", "image/webp", Buffer.concat([Buffer.from("RIFF"), Buffer.from([26, 0, 0, 0]), Buffer.from("WEBPVP8 ")])],
];

describe("view_image", () => {
  it.each(samples)("returns a %s file as an input_image data URL", async (ext, mime, bytes) => {
    // Named .bin: the format comes from the magic bytes, not the extension.
    const file = join(dir, `picture-${ext}.bin`);
    await writeFile(file, bytes);
    const out = await callTool(tools, "view_image", { path: file });
    expect(out.success).toBe(true);
    expect(out.item).toEqual({
      type: "function_call_output",
      call_id: out.callId,
      output: [{ type: "input_image", image_url: `data:${mime};base64,${bytes.toString("base64")}` }],
    });
  });

  it("resolves a relative path against the turn's cwd", async () => {
    await mkdir(join(dir, "img"));
    await writeFile(join(dir, "img", "a.png"), samples[0]![2]);
    const out = await callTool(tools, "view_image", { path: "img/a.png" }, { cwd: dir });
    expect(out.success).toBe(true);
  });

  it("names missing files, directories and unsupported formats", async () => {
    const missing = join(dir, "missing.png");
    const m = await callTool(tools, "view_image", { path: missing });
    expect(m.success).toBe(false);
    expect(m.text).toBe(`unable to locate image at \`${missing}\`: No such file or directory (os error 2)`);

    expect((await callTool(tools, "view_image", { path: dir })).text).toBe(`image path \`${dir}\` is not a file`);

    const text = join(dir, "notes.png");
    await writeFile(text, "just text");
    expect((await callTool(tools, "view_image", { path: text })).text).toBe(
      "unable to process image: invalid or unsupported image data",
    );
  });

  it("refuses files above the size limit", async () => {
    const file = join(dir, "big.png");
    await writeFile(file, Buffer.concat([samples[0]![2], Buffer.alloc(100)]));
    const small = [{ spec: VIEW_IMAGE_SPEC, handler: new ViewImageHandler(64), supportsParallel: true }];
    const out = await callTool(small, "view_image", { path: file });
    expect(out.success).toBe(false);
    expect(out.text).toBe(`image at \`${file}\` is 116 bytes, above the limit of 64 bytes`);
  });
});
