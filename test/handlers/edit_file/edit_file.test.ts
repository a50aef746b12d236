import { existsSync } from "node:fs";
import { chmod, lstat, mkdir, readFile, stat, symlink, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { createToolRouter, PermissionEngine, type ToolRouter, type TurnContext } from "../../../src/index.js";
import { callRouter, useTempDir } from "../toolHarness.js";

/*
 * edit_file through a real router (a session): read_file records what the session read, so
 * every edit here is preceded by the read a model would make.
 */
let dir: string;
useTempDir((d) => (dir = d));

let router: ToolRouter;
beforeEach(async () => {
  router = await createToolRouter({ shell: false, editFile: true, writeFile: true, applyPatch: "function" });
});

const call = (name: string, args: unknown, turn: Partial<TurnContext> = {}) =>
  callRouter(router, name, args, { cwd: dir, ...turn });
const read = (path: string, extra: Record<string, unknown> = {}) => call("read_file", { file_path: path, ...extra });
const edit = (args: { file_path: string; old_string: string; new_string: string; replace_all?: boolean }) =>
  call("edit_file", args);

async function fileWith(name: string, content: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

describe("edit_file replaces exact text", () => {
  it("replaces the one occurrence of old_string", async () => {
    const p = await fileWith("a.ts", "const a = 1;\nconst b = 2;\n");
    expect((await read(p)).success).toBe(true);
    const out = await edit({ file_path: p, old_string: "const b = 2;", new_string: "const b = 3;" });
    expect(out).toMatchObject({ success: true, text: `Updated ${p} (1 replacement)` });
    expect(await readFile(p, "utf8")).toBe("const a = 1;\nconst b = 3;\n");
  });

  it("answers a string that is not in the file, leaving it as it was", async () => {
    const p = await fileWith("a.ts", "  indented\n");
    await read(p);
    const out = await edit({ file_path: p, old_string: "indented\n  ", new_string: "x" });
    expect(out).toMatchObject({
      success: false,
      text: `old_string not found in ${p}; it must match the file exactly, whitespace and indentation included`,
    });
    expect(await readFile(p, "utf8")).toBe("  indented\n");
  });

  it("refuses a string found several times without replace_all, saying how many", async () => {
    const p = await fileWith("a.ts", "x = 1\nx = 1\nx = 1\n");
    await read(p);
    const out = await edit({ file_path: p, old_string: "x = 1", new_string: "x = 2" });
    expect(out).toMatchObject({
      success: false,
      text:
        `old_string matches 3 places in ${p}; set replace_all to replace every one, ` +
        "or add surrounding lines to old_string so that it matches one place only",
    });
    expect(await readFile(p, "utf8")).toBe("x = 1\nx = 1\nx = 1\n");
  });

  it("replaces every occurrence with replace_all, literally ($& is not special)", async () => {
    const p = await fileWith("a.ts", "foo(); foo();\nfoo();\n");
    await read(p);
    const out = await edit({ file_path: p, old_string: "foo", new_string: "$&bar", replace_all: true });
    expect(out).toMatchObject({ success: true, text: `Updated ${p} (3 replacements)` });
    expect(await readFile(p, "utf8")).toBe("$&bar(); $&bar();\n$&bar();\n");
  });

  it("refuses old_string equal to new_string", async () => {
    const p = await fileWith("a.ts", "same\n");
    await read(p);
    const out = await edit({ file_path: p, old_string: "same", new_string: "same" });
    expect(out).toMatchObject({
      success: false,
      text: "old_string and new_string are the same; there is nothing to change",
    });
  });

  it("matches and writes a CRLF file with its own line endings when the model sends \\n", async () => {
    const p = await fileWith("win.txt", "one\r\ntwo\r\nthree\r\n");
    await read(p);
    const out = await edit({ file_path: p, old_string: "one\ntwo\n", new_string: "1\n2\n2.5\n" });
    expect(out.success).toBe(true);
    expect(await readFile(p, "utf8")).toBe("1\r\n2\r\n2.5\r\nthree\r\n");
    // A one-line old_string with a multi-line new_string: the new lines end in CRLF too.
    const again = await edit({ file_path: p, old_string: "three", new_string: "3\nfour" });
    expect(again.success).toBe(true);
    expect(await readFile(p, "utf8")).toBe("1\r\n2\r\n2.5\r\n3\r\nfour\r\n");
  });

  it("keeps a byte-order mark and the file's mode", async () => {
    const p = await fileWith("bom.sh", "\uFEFF#!/bin/sh\necho hi\n");
    await chmod(p, 0o751);
    await read(p);
    expect((await edit({ file_path: p, old_string: "hi", new_string: "ho" })).success).toBe(true);
    expect(await readFile(p, "utf8")).toBe("\uFEFF#!/bin/sh\necho ho\n");
    expect((await stat(p)).mode & 0o777).toBe(0o751);
  });

  it("edits the file a symlink points at, keeping the link", async () => {
    const target = await fileWith("target.txt", "old\n");
    const link = join(dir, "link.txt");
    await symlink(target, link);
    await read(link);
    expect((await edit({ file_path: link, old_string: "old", new_string: "new" })).success).toBe(true);
    expect(await readFile(target, "utf8")).toBe("new\n");
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
  });

  it("refuses a relative path, a directory and a file that is not UTF-8", async () => {
    expect((await edit({ file_path: "a.ts", old_string: "a", new_string: "b" })).text).toBe(
      "file_path must be an absolute path",
    );
    await mkdir(join(dir, "sub"));
    expect((await edit({ file_path: join(dir, "sub"), old_string: "a", new_string: "b" })).text).toBe(
      `${join(dir, "sub")} is a directory`,
    );
    const bin = join(dir, "bin.dat");
    await writeFile(bin, Buffer.from([0x61, 0xff, 0xfe, 0x0a]));
    // No NUL byte: read_file reads it (as U+FFFD), so it counts as read.
    expect((await read(bin)).success).toBe(true);
    expect((await edit({ file_path: bin, old_string: "a", new_string: "b" })).text).toBe(
      `${bin} is not a UTF-8 text file`,
    );
  });
});

describe("edit_file creates a file with an empty old_string", () => {
  it("creates a file that does not exist, parents included, without a read", async () => {
    const p = join(dir, "new/deep/file.txt");
    const out = await edit({ file_path: p, old_string: "", new_string: "hello\n" });
    expect(out).toMatchObject({ success: true, text: `Created ${p}` });
    expect(await readFile(p, "utf8")).toBe("hello\n");
    // Its own write counts as seen: the next edit needs no read.
    expect((await edit({ file_path: p, old_string: "hello", new_string: "bye" })).success).toBe(true);
    expect(await readFile(p, "utf8")).toBe("bye\n");
  });

  it("fills an existing empty file once it was read, but never overwrites one with text", async () => {
    const empty = await fileWith("empty.txt", "");
    await read(empty); // "offset exceeds file length", yet the whole (empty) file was seen
    expect(await edit({ file_path: empty, old_string: "", new_string: "filled\n" })).toMatchObject({
      success: true,
      text: `Updated ${empty}`,
    });
    expect(await readFile(empty, "utf8")).toBe("filled\n");
    const full = await fileWith("full.txt", "text\n");
    await read(full);
    expect((await edit({ file_path: full, old_string: "", new_string: "x" })).text).toBe(
      `${full} already exists; old_string must not be empty when editing an existing file`,
    );
  });

  it("answers a missing file with a non-empty old_string", async () => {
    const p = join(dir, "missing.txt");
    expect((await edit({ file_path: p, old_string: "a", new_string: "b" })).text).toBe(
      `${p} does not exist (an empty old_string creates it)`,
    );
    expect(existsSync(p)).toBe(false);
  });
});

describe("edit_file and the session's reads", () => {
  it("refuses a file the session has not read", async () => {
    const p = await fileWith("a.ts", "a\n");
    const out = await edit({ file_path: p, old_string: "a", new_string: "b" });
    expect(out).toMatchObject({ success: false, text: `read ${p} before changing it` });
    expect(await readFile(p, "utf8")).toBe("a\n");
  });

  it("counts a partial read", async () => {
    const p = await fileWith("a.ts", "one\ntwo\nthree\n");
    await read(p, { offset: 1, limit: 1 });
    expect((await edit({ file_path: p, old_string: "three", new_string: "3" })).success).toBe(true);
  });

  it("refuses a file changed on disk since it was read, at once and with the same size", async () => {
    const p = await fileWith("a.ts", "version 1\n");
    await read(p);
    // Behind the session's back, within the same clock tick and the same size.
    await writeFile(p, "version 2\n");
    const out = await edit({ file_path: p, old_string: "version", new_string: "v" });
    expect(out).toMatchObject({ success: false, text: `${p} changed since it was read` });
    expect(await readFile(p, "utf8")).toBe("version 2\n");
    // Reading it again makes it editable.
    await read(p);
    expect((await edit({ file_path: p, old_string: "version", new_string: "v" })).success).toBe(true);
    expect(await readFile(p, "utf8")).toBe("v 2\n");
  });

  it("refuses an old file rewritten with its timestamps put back (the ctime moves)", async () => {
    const p = await fileWith("old.ts", "aaaa\n");
    const past = new Date("2020-01-01T00:00:00Z");
    await utimes(p, past, past);
    await read(p);
    await writeFile(p, "bbbb\n");
    await utimes(p, past, past);
    expect((await edit({ file_path: p, old_string: "b", new_string: "c" })).text).toBe(
      `${p} changed since it was read`,
    );
  });

  it("accepts its own earlier writes (edit_file, write_file, apply_patch) without a new read", async () => {
    const p = await fileWith("a.ts", "1\n");
    await read(p);
    expect((await edit({ file_path: p, old_string: "1", new_string: "2" })).success).toBe(true);
    expect((await call("write_file", { file_path: p, content: "3\n" })).success).toBe(true);
    const patch = `*** Begin Patch\n*** Update File: a.ts\n@@\n-3\n+4\n*** End Patch`;
    expect((await call("apply_patch", { input: patch })).success).toBe(true);
    expect((await edit({ file_path: p, old_string: "4", new_string: "5" })).success).toBe(true);
    expect(await readFile(p, "utf8")).toBe("5\n");
    // apply_patch needs no read itself; a file it added is editable at once.
    const added = `*** Begin Patch\n*** Add File: b.ts\n+b\n*** End Patch`;
    expect((await call("apply_patch", { input: added })).success).toBe(true);
    expect((await edit({ file_path: join(dir, "b.ts"), old_string: "b", new_string: "c" })).success).toBe(true);
  });

  it("keeps one ledger per router: another router has not read the file", async () => {
    const p = await fileWith("a.ts", "a\n");
    await read(p);
    const other = await createToolRouter({ shell: false, editFile: true });
    const out = await callRouter(other, "edit_file", { file_path: p, old_string: "a", new_string: "b" }, { cwd: dir });
    expect(out.text).toBe(`read ${p} before changing it`);
    expect((await edit({ file_path: p, old_string: "a", new_string: "b" })).success).toBe(true);
  });

  it("is one file whichever path names it (real paths)", async () => {
    const target = await fileWith("t.txt", "t\n");
    const link = join(dir, "l.txt");
    await symlink(target, link);
    await read(target);
    expect((await edit({ file_path: link, old_string: "t", new_string: "u" })).success).toBe(true);
  });
});

describe("edit_file and write_file before the policy stage", () => {
  it("are file edits judged by their path: accept_edits allows them, read_only and path rules deny them", async () => {
    const p = await fileWith("a.ts", "a\n");
    await read(p);
    const asked: string[] = [];
    const engine = (mode: "accept_edits" | "read_only", deny: string[] = []) =>
      new PermissionEngine({
        mode,
        deny,
        approve: async (req) => {
          asked.push(req.summary);
          return { decision: "deny" };
        },
      });
    const args = { file_path: p, old_string: "a", new_string: "b" };
    expect((await call("edit_file", args, { permissions: engine("accept_edits") })).success).toBe(true);
    expect(asked).toEqual([]);
    expect(
      (await call("write_file", { file_path: p, content: "c\n" }, { permissions: engine("read_only") })).text,
    ).toBe("denied by policy: write_file may change files or state, which read-only mode forbids");
    const denied = await call(
      "write_file",
      { file_path: join(dir, "x.lock"), content: "" },
      {
        permissions: engine("accept_edits", ["write_file(*.lock)"]),
      },
    );
    expect(denied.text).toBe('denied by policy: rule "write_file(*.lock)" forbids this call');
    expect(existsSync(join(dir, "x.lock"))).toBe(false);
  });
});

describe("patches run as commands count as the session's own writes", () => {
  it.each([
    ["shell", { shell: "shell" as const }, (cmd: string) => ["shell", { command: ["bash", "-lc", cmd] }] as const],
    ["exec_command", { shell: "unified_exec" as const }, (cmd: string) => ["exec_command", { cmd }] as const],
  ])("%s: a file its patch wrote may be edited without a read_file", async (_tool, config, callOf) => {
    const withShell = await createToolRouter({ ...config, editFile: true });
    try {
      const cmd = "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: made.txt\n+one\n*** End Patch\nEOF";
      const [name, args] = callOf(cmd);
      expect((await callRouter(withShell, name, args, { cwd: dir })).success).toBe(true);
      const path = join(dir, "made.txt");
      const out = await callRouter(
        withShell,
        "edit_file",
        { file_path: path, old_string: "one", new_string: "two" },
        { cwd: dir },
      );
      expect(out).toMatchObject({ success: true });
      expect(await readFile(path, "utf8")).toBe("two\n");
    } finally {
      await withShell.close();
    }
  });
});
