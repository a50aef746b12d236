import { existsSync } from "node:fs";
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createToolRouter } from "../../../src/index.js";
import { callRouter, useTempDir } from "../toolHarness.js";

let dir: string;
useTempDir((d) => (dir = d));

/** The spill file a cut output names in its marker. */
const spilledPath = (text: string): string | undefined => /the whole output is in (\S+)…/.exec(text)?.[1];

describe("spillDir: cut outputs are kept whole", () => {
  it("keeps a 1 MB command output in a file the marker names, readable with read_file, removed on close", async () => {
    const spillDir = join(dir, "spill");
    const router = await createToolRouter({ spillDir });
    const out = await callRouter(router, "shell", { command: ["bash", "-c", "seq 1 150000"] }, { cwd: dir });
    expect(out.success).toBe(true);
    const file = spilledPath(out.text);
    expect(file, out.text).toBeDefined();
    expect(file!.startsWith(`${spillDir}/`)).toBe(true);
    // Everything the command printed, the middle the model did not see included.
    const total = Array.from({ length: 150000 }, (_, i) => `${i + 1}\n`).join("").length;
    expect((await stat(file!)).size).toBe(total);
    const page = await callRouter(router, "read_file", { file_path: file, offset: 75000, limit: 2 }, { cwd: dir });
    expect(page.text).toBe("L75000: 75000\nL75001: 75001");
    await router.close();
    expect(existsSync(file!)).toBe(false);
  });

  it("keeps an output cut within the in-memory capture too, and writes nothing for one that fits", async () => {
    const spillDir = join(dir, "spill");
    const router = await createToolRouter({ spillDir });
    const turn = { cwd: dir, truncationPolicy: { mode: "bytes" as const, limit: 100 } };
    const small = await callRouter(router, "shell", { command: ["echo", "hi"] }, turn);
    expect(spilledPath(small.text)).toBeUndefined();
    expect(existsSync(spillDir) ? await readdir(spillDir) : []).toEqual([]);
    const cut = await callRouter(router, "shell", { command: ["bash", "-c", "seq 1 40"] }, turn);
    const file = spilledPath(cut.text);
    expect((await stat(file!)).size).toBe(Array.from({ length: 40 }, (_, i) => `${i + 1}\n`).join("").length);
    await router.close();
  });

  it("refuses an empty spillDir", async () => {
    await expect(createToolRouter({ spillDir: "" })).rejects.toThrow(
      'ToolsConfig.spillDir must be a non-empty path, got ""',
    );
  });
});

describe("spillDir for every tool's text output", () => {
  it("keeps a read_file answer the model sees cut, and pages it back", async () => {
    const spillDir = join(dir, "spill");
    const router = await createToolRouter({ spillDir });
    const big = join(dir, "big.txt");
    await writeFile(big, Array.from({ length: 3000 }, (_, i) => `row ${i + 1}`).join("\n"));
    const out = await callRouter(router, "read_file", { file_path: big }, { cwd: dir });
    const file = spilledPath(out.text);
    expect(file, out.text.slice(0, 300)).toBeDefined();
    expect(await readFile(file!, "utf8")).toContain("L1500: row 1500\n");
    await router.close();
    expect(existsSync(file!)).toBe(false);
  });
});

describe("spillDir for exec sessions", () => {
  it("keeps each cut chunk of a session whole: a 1 MB chunk and then a later one, each in its own file", async () => {
    const spillDir = join(dir, "spill");
    const router = await createToolRouter({ shell: "unified_exec", spillDir });
    try {
      // Prints 1 MB at once, then waits for a line on stdin before printing a second cut chunk.
      const script = "seq 1 150000; read _; seq 200001 203000; sleep 30";
      const first = await callRouter(
        router,
        "exec_command",
        { cmd: script, tty: true, yield_time_ms: 3000, max_output_tokens: 100 },
        { cwd: dir },
      );
      const session = Number(/Process running with session ID (\d+)/.exec(first.text)?.[1]);
      expect(session, first.text).toBeGreaterThan(0);
      const firstFile = spilledPath(first.text);
      expect(firstFile, first.text).toBeDefined();
      const lines = (await readFile(firstFile!, "utf8")).split(/\r?\n/);
      // The whole chunk, its middle included (a tty writes CRLF).
      expect(lines).toContain("75000");
      expect(lines).toContain("150000");

      const second = await callRouter(
        router,
        "write_stdin",
        { session_id: session, chars: "go\n", yield_time_ms: 1500, max_output_tokens: 100 },
        { cwd: dir },
      );
      const secondFile = spilledPath(second.text);
      expect(secondFile, second.text).toBeDefined();
      expect(secondFile).not.toBe(firstFile);
      const secondText = await readFile(secondFile!, "utf8");
      expect(secondText).toContain("201500");
      // Only what was not returned before.
      expect(secondText).not.toContain("\n75000");
    } finally {
      await router.close();
    }
    expect(existsSync(spillDir) ? await readdir(spillDir) : []).toEqual([]);
  });

  it("writes nothing for a chunk the model sees whole", async () => {
    const spillDir = join(dir, "spill");
    const router = await createToolRouter({ shell: "unified_exec", spillDir });
    try {
      const out = await callRouter(router, "exec_command", { cmd: "echo hi" }, { cwd: dir });
      expect(out.text).toMatch(/Output:\nhi\n$/);
      expect(existsSync(spillDir) ? await readdir(spillDir) : []).toEqual([]);
    } finally {
      await router.close();
    }
  });
});
