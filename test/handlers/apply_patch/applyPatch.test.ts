import { chmod, mkdir, readdir, readFile, readlink, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyPatch, PatchApplyError } from "../../../src/handlers/apply_patch/index.js";
import { useTempDir } from "../toolHarness.js";

let dir: string;
useTempDir((d) => (dir = d));

const patch = (...body: string[]): string => `*** Begin Patch\n${body.join("\n")}\n*** End Patch\n`;
const apply = (text: string) => applyPatch(text, { cwd: dir });
const read = (name: string) => readFile(join(dir, name), "utf8");
const readBytes = (name: string) => readFile(join(dir, name));

async function applyError(text: string): Promise<string> {
  const err = await apply(text).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PatchApplyError);
  return (err as Error).message;
}

/** Every entry under `dir` with its contents, to prove a failed patch left no trace. */
async function tree(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const path = join(e.parentPath, e.name);
    out[path.slice(dir.length + 1)] = e.isDirectory() ? "dir" : await readFile(path, "utf8");
  }
  return out;
}

describe("applyPatch: all or nothing", () => {
  it("writes nothing when the second of three file updates does not match", async () => {
    await writeFile(join(dir, "a.txt"), "a1\na2\n");
    await writeFile(join(dir, "b.txt"), "b1\nb2\n");
    await writeFile(join(dir, "c.txt"), "c1\nc2\n");
    const before = await tree();
    const message = await applyError(
      patch(
        "*** Update File: a.txt",
        "@@",
        "-a1",
        "+A1",
        "*** Update File: b.txt",
        "@@ def missing():",
        "-b1",
        "+B1",
        "*** Update File: c.txt",
        "@@",
        "-c1",
        "+C1",
      ),
    );
    expect(message).toBe(`Failed to find context 'def missing():' in ${join(dir, "b.txt")}`);
    expect(await tree()).toEqual(before);
  });

  it("names the file and the lines that did not match", async () => {
    await writeFile(join(dir, "a.txt"), "one\ntwo\n");
    await writeFile(join(dir, "b.txt"), "three\n");
    const message = await applyError(
      patch("*** Update File: a.txt", "@@", "-one", "+ONE", "*** Update File: b.txt", "@@", " three", "-four", "+FOUR"),
    );
    expect(message).toBe(`Failed to find expected lines in ${join(dir, "b.txt")}:\nthree\nfour`);
    expect(await read("a.txt")).toBe("one\ntwo\n");
  });

  it("restores every changed file and removes created directories when a write fails midway", async () => {
    await writeFile(join(dir, "a.txt"), "keep me\n");
    await writeFile(join(dir, "gone.txt"), "still here\n");
    await writeFile(join(dir, "blocker"), "a file where a directory is needed\n");
    const before = await tree();
    const message = await applyError(
      patch(
        "*** Update File: a.txt",
        "@@",
        "-keep me",
        "+changed",
        "*** Add File: fresh/deep/new.txt",
        "+new",
        "*** Delete File: gone.txt",
        "*** Add File: blocker/inside.txt",
        "+cannot be written",
      ),
    );
    expect(message).toBe(
      `Failed to write file ${join(dir, "blocker/inside.txt")}: Not a directory (os error 20)\nThe patch was not applied; no files were changed.`,
    );
    // gone.txt (deleted first) and a.txt restored, fresh/ removed, no temp files left behind.
    expect(await tree()).toEqual(before);
  });

  it("applies hunks in order, each seeing what the earlier ones planned", async () => {
    await writeFile(join(dir, "old.txt"), "x\n");
    const result = await apply(
      patch(
        "*** Add File: made.txt",
        "+first",
        "*** Update File: made.txt",
        "@@",
        "-first",
        "+second",
        "*** Delete File: old.txt",
        "*** Add File: old.txt",
        "+reborn",
      ),
    );
    expect(result.summary).toBe(
      "Success. Updated the following files:\nA made.txt\nA old.txt\nM made.txt\nD old.txt\n",
    );
    expect(await read("made.txt")).toBe("second\n");
    expect(await read("old.txt")).toBe("reborn\n");
    await expect(apply(patch("*** Delete File: old.txt", "*** Delete File: old.txt"))).rejects.toThrow(
      `Failed to read ${join(dir, "old.txt")}: No such file or directory (os error 2)`,
    );
    expect(await read("old.txt")).toBe("reborn\n");
  });

  it("lets a deleted file make way for a directory of the same name", async () => {
    await writeFile(join(dir, "node"), "was a file\n");
    await apply(patch("*** Delete File: node", "*** Add File: node/child.txt", "+now a directory"));
    expect(await read("node/child.txt")).toBe("now a directory\n");
  });

  it("keeps a file moved onto itself, and resolves relative and absolute paths against cwd", async () => {
    await writeFile(join(dir, "self.txt"), "a\n");
    await apply(patch("*** Update File: self.txt", "*** Move to: self.txt", "@@", "-a", "+b"));
    expect(await read("self.txt")).toBe("b\n");
    await apply(patch(`*** Add File: ${join(dir, "abs.txt")}`, "+absolute"));
    expect(await read("abs.txt")).toBe("absolute\n");
  });

  it("writes nothing when aborted before the commit", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      applyPatch(patch("*** Add File: x.txt", "+x"), { cwd: dir, signal: controller.signal }),
    ).rejects.toThrow("apply_patch was aborted before any file was changed");
    expect(await tree()).toEqual({});
  });

  it("refuses to update a file that is not UTF-8 or is a directory, or to add over a directory", async () => {
    await writeFile(join(dir, "bin.dat"), Buffer.from([0xff, 0xfe, 0x00, 0x80]));
    await mkdir(join(dir, "sub"));
    expect(await applyError(patch("*** Update File: bin.dat", "@@", "-x", "+y"))).toBe(
      `Failed to read file to update ${join(dir, "bin.dat")}: stream did not contain valid UTF-8`,
    );
    expect(await applyError(patch("*** Update File: sub", "@@", "-x", "+y"))).toBe(
      `Failed to read file to update ${join(dir, "sub")}: Is a directory (os error 21)`,
    );
    expect(await applyError(patch("*** Add File: sub", "+x"))).toBe(
      // Codex 0.169's words for it (it finds out writing; we before writing anything).
      `Failed to write file ${join(dir, "sub")}`,
    );
  });
});

describe("applyPatch: what it writes", () => {
  it("keeps each line's own ending and gives new lines the file's first ending (Codex text_file)", async () => {
    await writeFile(join(dir, "crlf.txt"), "one\r\ntwo\r\nthree\r\n");
    await apply(patch("*** Update File: crlf.txt", "@@", "-one", "+uno", "@@", " two", "+", "+between", " three"));
    expect((await readBytes("crlf.txt")).toString()).toBe("uno\r\ntwo\r\n\r\nbetween\r\nthree\r\n");

    await writeFile(join(dir, "mixed.txt"), "one\r\ntwo\nthree\r\nfour\n");
    await apply(patch("*** Update File: mixed.txt", "@@", " one", " two", "-three", "+THREE", " four"));
    expect((await readBytes("mixed.txt")).toString()).toBe("one\r\ntwo\nTHREE\r\nfour\n");

    await writeFile(join(dir, "ctx.txt"), "same\r\nsame\n");
    await apply(patch("*** Update File: ctx.txt", "@@", "-same", " same"));
    expect((await readBytes("ctx.txt")).toString()).toBe("same\n");

    await writeFile(join(dir, "open.txt"), "one\r\ntwo");
    await apply(patch("*** Update File: open.txt", "@@", "-one", "+ONE"));
    expect((await readBytes("open.txt")).toString()).toBe("ONE\r\ntwo\r\n");
  });

  it("keeps the order of repeated lines", async () => {
    await writeFile(join(dir, "r.txt"), "a\nb\n");
    await apply(patch("*** Update File: r.txt", "@@", "-a", "-b", "+b", "+b", "+a"));
    expect(await read("r.txt")).toBe("b\nb\na\n");
  });

  it("leaves fuzzily matched context lines exactly as they were", async () => {
    await writeFile(join(dir, "q.py"), "say(\u201Chi\u201D)  \n    old = 1\n");
    await apply(patch("*** Update File: q.py", "@@", ' say("hi")', "-old = 1", "+    new = 2"));
    expect(await read("q.py")).toBe("say(\u201Chi\u201D)  \n    new = 2\n");
  });

  it("seeks nested @@ contexts in order", async () => {
    await writeFile(join(dir, "n.py"), "class A:\n  def m():\n    x = 1\nclass B:\n  def m():\n    x = 1\n");
    await apply(patch("*** Update File: n.py", "@@ class B:", "@@   def m():", "-    x = 1", "+    x = 2"));
    expect(await read("n.py")).toBe("class A:\n  def m():\n    x = 1\nclass B:\n  def m():\n    x = 2\n");
  });

  it("matches a chunk whose last old line is the final newline", async () => {
    await writeFile(join(dir, "t.txt"), "a\nb\n");
    await apply(patch("*** Update File: t.txt", "@@", " b", "-", "+c"));
    expect(await read("t.txt")).toBe("a\nb\nc\n");
  });

  it("keeps the file mode, a byte-order mark, and writes through a symlink", async () => {
    await writeFile(join(dir, "run.sh"), "\uFEFFecho old\n");
    await chmod(join(dir, "run.sh"), 0o754);
    await symlink("run.sh", join(dir, "link.sh"));
    await apply(patch("*** Update File: link.sh", "@@", "-\uFEFFecho old", "+\uFEFFecho new"));
    expect(await read("run.sh")).toBe("\uFEFFecho new\n");
    expect((await stat(join(dir, "run.sh"))).mode & 0o777).toBe(0o754);
    expect(await readlink(join(dir, "link.sh"))).toBe("run.sh");
  });
});

describe("applyPatch on generated files", () => {
  it("replacing one line with context around it changes exactly that line", async () => {
    const line = fc.stringMatching(/^[a-z ]{0,8}$/);
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { minLength: 1, maxLength: 30 }),
        fc.nat(),
        line,
        async (lines, at, replacement) => {
          const i = at % lines.length;
          const name = "gen.txt";
          await writeFile(join(dir, name), `${lines.join("\n")}\n`);
          // Up to 3 lines of context each side, as the tool instructions ask of the model.
          const before = lines.slice(Math.max(0, i - 3), i).map((l) => ` ${l}`);
          const after = lines.slice(i + 1, i + 4).map((l) => ` ${l}`);
          await apply(patch(`*** Update File: ${name}`, "@@", ...before, `-${lines[i]}`, `+${replacement}`, ...after));
          // The first occurrence of the context+line block is the one that changes.
          const expected = [...lines];
          const block = lines.slice(Math.max(0, i - 3), i + 4);
          const first = lines.findIndex((_, k) => block.every((b, j) => lines[k + j] === b));
          expected[first + (i - Math.max(0, i - 3))] = replacement;
          expect(await read(name)).toBe(`${expected.join("\n")}\n`);
        },
      ),
      { numRuns: 150 },
    );
  });
});
