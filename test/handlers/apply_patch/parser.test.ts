import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parsePatch, PatchParseError, type Hunk } from "../../../src/handlers/apply_patch/parser.js";

const wrap = (body: string): string => `*** Begin Patch\n${body}\n*** End Patch`;

function parseError(text: string): string {
  try {
    parsePatch(text);
  } catch (err) {
    expect(err).toBeInstanceOf(PatchParseError);
    return (err as Error).message;
  }
  throw new Error("expected a parse error");
}

describe("parsePatch", () => {
  it("parses add, delete and update-with-move hunks (Codex test_parse_patch)", () => {
    const hunks = parsePatch(
      wrap(
        [
          "*** Add File: path/add.py",
          "+abc",
          "+def",
          "*** Delete File: path/delete.py",
          "*** Update File: path/update.py",
          "*** Move to: path/update2.py",
          "@@ def f():",
          "-    pass",
          "+    return 123",
        ].join("\n"),
      ),
    );
    expect(hunks).toEqual<Hunk[]>([
      { type: "add", path: "path/add.py", contents: "abc\ndef\n" },
      { type: "delete", path: "path/delete.py" },
      {
        type: "update",
        path: "path/update.py",
        movePath: "path/update2.py",
        chunks: [
          {
            changeContext: ["def f():"],
            lines: [
              { kind: "-", text: "    pass" },
              { kind: "+", text: "    return 123" },
            ],
            isEndOfFile: false,
          },
        ],
      },
    ]);
  });

  it("names the missing envelope markers", () => {
    expect(parseError("bad")).toBe("invalid patch: The first line of the patch must be '*** Begin Patch'");
    // No lines at all: Codex 0.169 names the last line.
    expect(parseError("")).toBe("invalid patch: The last line of the patch must be '*** End Patch'");
    expect(parseError("*** Begin Patch\nbad")).toBe(
      "invalid patch: The last line of the patch must be '*** End Patch'",
    );
    expect(parseError("*** Begin Patch")).toBe("invalid patch: The last line of the patch must be '*** End Patch'");
  });

  it("reports hunk errors with their line numbers", () => {
    expect(parseError(wrap("*** Update File: test.py"))).toBe(
      "invalid hunk at line 2, Update file hunk for path 'test.py' is empty",
    );
    expect(parseError(wrap("*** Add File: a\n+x\n*** Frobnicate: b"))).toBe(
      "invalid hunk at line 4, '*** Frobnicate: b' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'",
    );
    expect(parseError(wrap("*** Update File: a\n@@\nbad"))).toBe(
      "invalid hunk at line 4, Unexpected line found in update hunk: 'bad'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)",
    );
    // Without a `@@` header the bad line is the hunk's first (Codex 0.169: line 3, not 4).
    expect(parseError(wrap("*** Update File: a\nbad"))).toBe(
      "invalid hunk at line 3, Unexpected line found in update hunk: 'bad'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)",
    );
    expect(parseError(wrap("*** Update File: a\n@@\n*** End of File"))).toBe(
      "invalid hunk at line 4, Update hunk does not contain any lines",
    );
    // Only the first chunk may omit its `@@` header.
    expect(parseError(wrap("*** Update File: a\n@@\n-x\n*** End of File\n-y"))).toBe(
      "invalid hunk at line 6, Expected update hunk to start with a @@ context marker, got: '-y'",
    );
  });

  it("accepts a first chunk without @@, empty context lines, end-of-file markers and blank separators", () => {
    const [hunk] = parsePatch(wrap("*** Update File: f\n import foo\n\n+bar\n*** End of File\n\n@@ tail\n-x\n+y"));
    expect(hunk).toEqual<Hunk>({
      type: "update",
      path: "f",
      chunks: [
        {
          changeContext: [],
          lines: [
            { kind: " ", text: "import foo" },
            { kind: " ", text: "" },
            { kind: "+", text: "bar" },
          ],
          isEndOfFile: true,
        },
        {
          changeContext: ["tail"],
          lines: [
            { kind: "-", text: "x" },
            { kind: "+", text: "y" },
          ],
          isEndOfFile: false,
        },
      ],
    });
  });

  it("takes consecutive @@ lines as nested contexts, as the tool instructions advertise", () => {
    const [hunk] = parsePatch(wrap("*** Update File: f\n@@ class A\n@@   def m():\n-  x\n+  y"));
    expect(hunk?.type === "update" && hunk.chunks[0]?.changeContext).toEqual(["class A", "  def m():"]);
  });

  it("tolerates padded markers, CRLF line breaks and a heredoc wrapper", () => {
    const expected: Hunk[] = [{ type: "add", path: "foo", contents: "hi\n" }];
    expect(parsePatch("  *** Begin Patch \n *** Add File: foo \n+hi\n *** End Patch  \n")).toEqual(expected);
    expect(parsePatch("*** Begin Patch\r\n*** Add File: foo\r\n+hi\r\n*** End Patch\r\n")).toEqual(expected);
    for (const open of ["<<EOF", "<<'EOF'", '<<"EOF"']) {
      expect(parsePatch(`${open}\n*** Begin Patch\n*** Add File: foo\n+hi\n*** End Patch\nEOF\n`)).toEqual(expected);
    }
    expect(parseError(`<<"EOF'\n*** Begin Patch\n*** Add File: foo\n+hi\n*** End Patch\nEOF\n`)).toBe(
      "invalid patch: The first line of the patch must be '*** Begin Patch'",
    );
    expect(parseError("<<EOF\n*** Begin Patch\n*** Update File: file2.py\nEOF\n")).toBe(
      "invalid patch: The last line of the patch must be '*** End Patch'",
    );
  });

  it("keeps an empty add (a new empty file) and an empty patch", () => {
    expect(parsePatch(wrap("*** Add File: empty.txt"))).toEqual<Hunk[]>([
      { type: "add", path: "empty.txt", contents: "" },
    ]);
    expect(parsePatch("*** Begin Patch\n*** End Patch")).toEqual([]);
  });
});

describe("parsePatch on arbitrary input", () => {
  it("returns hunks or throws PatchParseError, nothing else", () => {
    const patchish = fc.array(
      fc.oneof(
        fc.constantFrom(
          "*** Begin Patch",
          "*** End Patch",
          "*** Add File: a",
          "*** Update File: a",
          "*** Delete File: a",
        ),
        fc.constantFrom("*** Move to: b", "*** End of File", "@@", "@@ ctx", "+x", "-x", " x", "", "<<EOF", "EOF"),
        fc.string(),
      ),
      { maxLength: 12 },
    );
    fc.assert(
      fc.property(patchish, (lines) => {
        try {
          expect(Array.isArray(parsePatch(lines.join("\n")))).toBe(true);
        } catch (err) {
          expect(err).toBeInstanceOf(PatchParseError);
        }
      }),
      { numRuns: 500 },
    );
  });
});
