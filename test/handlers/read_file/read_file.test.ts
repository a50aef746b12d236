import { spawn } from "node:child_process";
import { mkdir, open, writeFile } from "node:fs/promises";
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

describe("read_file", () => {
  it("numbers lines from 1 and honours offset and limit", async () => {
    const file = join(dir, "a.txt");
    await writeFile(file, "alpha\nbeta\r\ngamma\ndelta\n");
    const all = await read({ file_path: file });
    expect(all.success).toBe(true);
    expect(all.text).toBe("L1: alpha\nL2: beta\nL3: gamma\nL4: delta");

    const slice = await read({ file_path: file, offset: 2, limit: 2 });
    expect(slice.text).toBe("L2: beta\nL3: gamma");
  });

  it("reads a last line without a trailing newline and keeps empty lines", async () => {
    const file = join(dir, "b.txt");
    await writeFile(file, "one\n\nthree");
    expect((await read({ file_path: file })).text).toBe("L1: one\nL2: \nL3: three");
  });

  it("cuts each line at 500 characters, counting characters not bytes", async () => {
    const file = join(dir, "long.txt");
    await writeFile(file, `${"x".repeat(10_000)}\n${"é".repeat(600)}\n${"😀".repeat(501)}\nshort\n`);
    const lines = (await read({ file_path: file })).text.split("\n");
    expect(lines[0]).toBe(`L1: ${"x".repeat(500)}`);
    expect(lines[1]).toBe(`L2: ${"é".repeat(500)}`);
    expect(lines[2]).toBe(`L3: ${"😀".repeat(500)}`);
    expect(lines[3]).toBe("L4: short");
  });

  it("defaults to 2000 lines", async () => {
    const file = join(dir, "many.txt");
    await writeFile(file, Array.from({ length: 2500 }, (_, i) => `${i + 1}`).join("\n"));
    const out = await callTool(
      tools,
      "read_file",
      { file_path: file },
      { truncationPolicy: { mode: "bytes", limit: 1e6 } },
    );
    const lines = out.text.split("\n");
    expect(lines).toHaveLength(2000);
    expect(lines.at(-1)).toBe("L2000: 2000");
  });

  it("refuses a FIFO without blocking, whether or not a writer holds it open", async () => {
    const fifo = join(dir, "stream");
    const mk = spawn("mkfifo", [fifo]);
    await new Promise((r) => mk.on("close", r));
    // No writer: opening it for reading would block a file-I/O thread until one comes.
    expect(await read({ file_path: fifo })).toMatchObject({ success: false, text: `${fifo} is not a regular file` });
    const writer = spawn("sh", ["-c", `{ seq 1 100000; sleep 30; } > '${fifo}'`], { detached: true, stdio: "ignore" });
    try {
      expect(await read({ file_path: fifo })).toMatchObject({ success: false, text: `${fifo} is not a regular file` });
    } finally {
      process.kill(-writer.pid!, "SIGKILL");
    }
  });

  it("refuses a device", async () => {
    expect(await read({ file_path: "/dev/zero" })).toMatchObject({
      success: false,
      text: "/dev/zero is not a regular file",
    });
  });

  it("answers from the head of a 1 GiB file", async () => {
    const file = join(dir, "huge.log");
    const handle = await open(file, "w");
    await handle.write(Array.from({ length: 5000 }, (_, i) => `line ${i + 1}`).join("\n") + "\n");
    await handle.truncate(1024 ** 3); // sparse: no disk used, but 1 GiB to read
    await handle.close();
    const out = await read({ file_path: file, offset: 4999, limit: 2 });
    expect(out.text).toBe("L4999: line 4999\nL5000: line 5000");
  });

  it.each([
    [{ file_path: "relative/a.txt" }, "file_path must be an absolute path"],
    [{ file_path: "/x", offset: 0 }, "offset must be a 1-indexed line number"],
    [{ file_path: "/x", limit: 0 }, "limit must be greater than zero"],
  ])("rejects %j", async (args, message) => {
    const out = await read(args);
    expect(out.success).toBe(false);
    expect(out.text).toBe(message);
  });

  it("rejects an offset past the end", async () => {
    const file = join(dir, "short.txt");
    await writeFile(file, "a\nb\n");
    const out = await read({ file_path: file, offset: 3 });
    expect(out.success).toBe(false);
    expect(out.text).toBe("offset exceeds file length");
  });

  it("names missing files, directories and binary files", async () => {
    const missing = join(dir, "nope.txt");
    expect((await read({ file_path: missing })).text).toBe(`failed to read file: ${missing} does not exist`);

    const sub = join(dir, "sub");
    await mkdir(sub);
    expect((await read({ file_path: sub })).text).toBe(
      `failed to read file: ${sub} is a directory; use list_dir to list it`,
    );

    const bin = join(dir, "blob.bin");
    await writeFile(bin, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x00, 0x00, 0x0a, 0x41]));
    const out = await read({ file_path: bin });
    expect(out.success).toBe(false);
    expect(out.text).toBe(`failed to read file: ${bin} is a binary file`);
  });

  it("validates argument types against the schema", async () => {
    const out = await read({ file_path: "/x", offset: 1.5, extra: true });
    expect(out.success).toBe(false);
    expect(out.text).toContain("invalid arguments for read_file:");
    expect(out.text).toContain("/offset must be integer");
    expect(out.text).toContain("/extra is not an allowed property");
  });
});
