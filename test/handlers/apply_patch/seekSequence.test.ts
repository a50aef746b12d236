import { describe, expect, it } from "vitest";
import { normalisePunctuation, seekSequence } from "../../../src/handlers/apply_patch/seekSequence.js";

describe("seekSequence", () => {
  it("finds an exact match (Codex test_exact_match_finds_sequence)", () => {
    expect(seekSequence(["foo", "bar", "baz"], ["bar", "baz"], 0, false)).toBe(1);
  });

  it("ignores trailing whitespace, then surrounding whitespace", () => {
    expect(seekSequence(["foo   ", "bar\t\t"], ["foo", "bar"], 0, false)).toBe(0);
    expect(seekSequence(["    foo   ", "   bar\t"], ["foo", "bar"], 0, false)).toBe(0);
  });

  it("matches typographic punctuation against ASCII last", () => {
    const lines = ["const s = \u201Chello\u201D \u2014 it\u2019s\u00A0fine"];
    expect(seekSequence(lines, ['const s = "hello" - it\'s fine'], 0, false)).toBe(0);
    expect(normalisePunctuation("  a\u2013b\u3000c  ")).toBe("a-b c");
  });

  it("prefers a stricter match later in the file over a looser one earlier", () => {
    expect(seekSequence(["  x", "x"], ["x"], 0, false)).toBe(1);
  });

  it("searches from `start` and returns undefined when nothing matches", () => {
    expect(seekSequence(["a", "b", "a"], ["a"], 1, false)).toBe(2);
    expect(seekSequence(["a", "b"], ["c"], 0, false)).toBeUndefined();
  });

  it("never matches a pattern longer than the file (Codex test_pattern_longer_than_input_returns_none)", () => {
    expect(seekSequence(["just one line"], ["too", "many", "lines"], 0, false)).toBeUndefined();
  });

  it("treats an empty pattern as a match at `start`", () => {
    expect(seekSequence(["a"], [], 1, false)).toBe(1);
  });

  it("anchors an end-of-file pattern at the end", () => {
    expect(seekSequence(["x", "y", "x", "y"], ["x", "y"], 0, true)).toBe(2);
    expect(seekSequence(["x", "y", "z"], ["x", "y"], 0, true)).toBeUndefined();
  });
});
