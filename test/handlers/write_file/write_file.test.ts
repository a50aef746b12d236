import { chmod, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import {
  createToolRouter,
  ReadinessFlag,
  ToolCallRuntime,
  createTurnContext,
  type ToolRouter,
} from "../../../src/index.js";
import { callRouter, functionCall, useTempDir } from "../toolHarness.js";

let dir: string;
useTempDir((d) => (dir = d));

let router: ToolRouter;
beforeEach(async () => {
  router = await createToolRouter({ shell: false, writeFile: true });
});

const call = (name: string, args: unknown) => callRouter(router, name, args, { cwd: dir });
const write = (file_path: string, content: string) => call("write_file", { file_path, content });

describe("write_file", () => {
  it("creates a new file and its parent directories without a read", async () => {
    const p = join(dir, "a/b/new.txt");
    expect(await write(p, "hello\n")).toMatchObject({ success: true, text: `Created ${p}` });
    expect(await readFile(p, "utf8")).toBe("hello\n");
  });

  it("overwrites a file it read, keeping its mode", async () => {
    const p = join(dir, "run.sh");
    await writeFile(p, "old\n");
    await chmod(p, 0o755);
    await call("read_file", { file_path: p });
    expect(await write(p, "new\n")).toMatchObject({ success: true, text: `Overwrote ${p}` });
    expect(await readFile(p, "utf8")).toBe("new\n");
    expect((await stat(p)).mode & 0o777).toBe(0o755);
    // Its own write counts as seen.
    expect((await write(p, "newer\n")).success).toBe(true);
  });

  it("refuses to overwrite a file it has not read, or one changed since", async () => {
    const p = join(dir, "keep.txt");
    await writeFile(p, "keep\n");
    expect(await write(p, "lost\n")).toMatchObject({ success: false, text: `read ${p} before changing it` });
    expect(await readFile(p, "utf8")).toBe("keep\n");
    await call("read_file", { file_path: p });
    await writeFile(p, "them\n");
    expect(await write(p, "lost\n")).toMatchObject({ success: false, text: `${p} changed since it was read` });
    expect(await readFile(p, "utf8")).toBe("them\n");
  });

  it("keeps a CRLF file's line endings when the content has none of its own", async () => {
    const p = join(dir, "win.txt");
    await writeFile(p, "a\r\nb\r\n");
    await call("read_file", { file_path: p });
    expect((await write(p, "x\ny\n")).success).toBe(true);
    expect(await readFile(p, "utf8")).toBe("x\r\ny\r\n");
    expect((await write(p, "mixed\r\nlf\n")).success).toBe(true);
    expect(await readFile(p, "utf8")).toBe("mixed\r\nlf\n");
  });

  it("refuses a relative path", async () => {
    expect((await write("rel.txt", "x")).text).toBe("file_path must be an absolute path");
  });

  it("is mutating and exclusive: it waits for the readiness gate", async () => {
    const p = join(dir, "gated.txt");
    const flag = new ReadinessFlag();
    const token = flag.subscribe();
    const runtime = new ToolCallRuntime(router, createTurnContext({ cwd: dir, toolCallGate: flag }));
    runtime.submit(functionCall("write_file", { file_path: p, content: "x" }));
    await new Promise((r) => setTimeout(r, 50));
    await expect(stat(p)).rejects.toThrow();
    flag.markReady(token);
    const [out] = await runtime.drainOutcomes();
    expect(out?.success).toBe(true);
    expect(router.toolSupportsParallel("write_file")).toBe(false);
  });
});
