import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readFileToolFactory } from "../../../src/handlers/read_file/handler.js";
import { callTool, fromFactory, tempDir } from "../toolHarness.js";

const tools = fromFactory(readFileToolFactory);
const read = (args: unknown) => callTool(tools, "read_file", args);

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

// Lines where decoding a whole file at once could differ from decoding each line on its own.
const HEAD = Buffer.concat([
  Buffer.from("plain\r\nlone\rcarriage\n\n"),
  Buffer.from([0x62, 0x61, 0x64, 0xff, 0xe2, 0x82, 0x0a]), // invalid and truncated UTF-8 before the newline
  Buffer.from(`${"é".repeat(499)}\r\n${"😀".repeat(499)}x\r\n${"a".repeat(1999)}\r\n`),
  Buffer.from("\uFEFFmid-file BOM\n"),
  Buffer.from("last\n"),
]);

describe("read_file of a file read whole in one chunk", () => {
  it("answers the same lines as the streaming read of a file larger than a chunk", async () => {
    const small = join(dir, "small.txt");
    const large = join(dir, "large.txt");
    // One decoding of the whole text for the small file; the large one is decoded line by line.
    const noBom = HEAD.subarray(0, HEAD.indexOf(Buffer.from("\uFEFF")));
    for (const head of [HEAD, noBom]) {
      await writeFile(small, head);
      await writeFile(large, Buffer.concat([head, Buffer.from("filler line\n".repeat(10_000))]));
      const lines = head.toString("latin1").split("\n").length - 1;
      for (const [offset, limit] of [
        [1, lines],
        [2, 3],
        [lines, 1],
      ] as const) {
        const fast = await read({ file_path: small, offset, limit });
        const streamed = await read({ file_path: large, offset, limit });
        expect(fast.success).toBe(true);
        expect(fast.text).toBe(streamed.text);
      }
    }
    await writeFile(small, "a\nb\n");
    expect(await read({ file_path: small, offset: 3 })).toMatchObject({
      success: false,
      text: "offset exceeds file length",
    });
  });
});
