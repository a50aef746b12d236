import { createHook } from "node:async_hooks";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readFileToolFactory } from "../../../src/handlers/read_file/handler.js";
import { createToolRouter } from "../../../src/index.js";
import { callRouter, callTool, fromFactory, tempDir } from "../toolHarness.js";

const tools = fromFactory(readFileToolFactory);

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

/** read_file of `path` in this process (no sandbox), and how many requests it made of the I/O thread pool. */
async function readCounting(path: string): Promise<{ text: string; success: boolean | undefined; requests: number }> {
  let requests = 0;
  const hook = createHook({
    init: (_id, type) => {
      if (type === "FSREQCALLBACK" || type === "FSREQPROMISE") requests++;
    },
  }).enable();
  try {
    const { text, success } = await callTool(tools, "read_file", { file_path: path });
    return { text, success, requests };
  } finally {
    hook.disable();
  }
}

const numbered = (count: number, line: (i: number) => string): string =>
  Array.from({ length: count }, (_, i) => `L${i + 1}: ${line(i)}`).join("\n");

describe("read_file in the host process and the I/O thread pool", () => {
  it("reads a small file on a local disk without the pool once it is open", async () => {
    const file = join(dir, "small.ts");
    await writeFile(file, Array.from({ length: 100 }, (_, i) => `const line${i} = ${i};`).join("\n"));
    await readCounting(file); // the first file of a device also asks the device's file system type
    const { text, success, requests } = await readCounting(file);
    expect(success).toBe(true);
    expect(text).toBe(numbered(100, (i) => `const line${i} = ${i};`));
    // The environment's check and the open; the state, the bytes, the real path (the
    // descriptor's name) and the close are plain calls. Through the pool, they were 6 requests.
    expect(requests).toBeLessThanOrEqual(2);
  });

  it("keeps the pool for a file over 64 KiB and for a file not on a local disk", async () => {
    const large = join(dir, "large.txt");
    await writeFile(large, "x".repeat(99) + "\n" + "y\n".repeat(40_000));
    await readCounting(large);
    const read = await readCounting(large);
    expect(read.success).toBe(true);
    expect(read.text).toContain(`L1: ${"x".repeat(99)}\nL2: y\nL3: y\n`);
    // The open, a read of the first chunk and the close at least, beside the check.
    expect(read.requests).toBeGreaterThanOrEqual(5);

    // procfs is not a local disk: its files may be slow to produce (and say size 0).
    await readCounting("/proc/self/status");
    const proc = await readCounting("/proc/self/status");
    expect(proc.success).toBe(true);
    expect(proc.text).toMatch(/^L1: Name:/);
    expect(proc.requests).toBeGreaterThanOrEqual(5);
  });

  it("remembers the file it read by its real path: an edit through another name of it is allowed", async () => {
    const router = await createToolRouter({ shell: false, editFile: true });
    try {
      await mkdir(join(dir, "real"));
      await symlink(join(dir, "real"), join(dir, "linked"));
      const real = join(dir, "real", "a.txt");
      const linked = join(dir, "linked", "a.txt");
      await writeFile(real, "one\n");
      // Read through the linked directory, edited by the real path; and the other way round.
      expect((await callRouter(router, "read_file", { file_path: linked })).success).toBe(true);
      const first = await callRouter(router, "edit_file", { file_path: real, old_string: "one", new_string: "two" });
      expect(first.success).toBe(true);
      expect((await callRouter(router, "read_file", { file_path: real })).success).toBe(true);
      const second = await callRouter(router, "edit_file", { file_path: linked, old_string: "two", new_string: "six" });
      expect(second.success).toBe(true);
      expect(await readFile(real, "utf8")).toBe("six\n");
    } finally {
      await router.close();
    }
  });
});
