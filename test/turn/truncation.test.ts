import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createTurnContext } from "../../src/index.js";
import { truncateBody, truncateText } from "../../src/subpaths/handlers.js";

describe("truncation policy", () => {
  it("leaves text within budget unchanged", () => {
    expect(truncateText("hello", { mode: "bytes", limit: 5 })).toBe("hello");
    expect(truncateText("", { mode: "bytes", limit: 0 })).toBe("");
  });

  it("keeps head and tail halves with the exact header and marker", () => {
    const text = "line1\nline2\nline3\nline4\n";
    expect(truncateText(text, { mode: "bytes", limit: 10 })).toBe(
      "Total output lines: 4\n\nline1…14 chars truncated…ine4\n",
    );
  });

  it("cuts on UTF-8 boundaries and counts removed characters", () => {
    const text = "é".repeat(10); // 20 bytes
    // 7-byte budget: head 3 bytes -> one "é" (2 bytes), tail 4 bytes -> two "é".
    expect(truncateText(text, { mode: "bytes", limit: 7 })).toBe("Total output lines: 1\n\né…7 chars truncated…éé");
    const emoji = "😀".repeat(5); // 4 bytes each
    expect(truncateText(emoji, { mode: "bytes", limit: 10 })).toBe("Total output lines: 1\n\n😀…3 chars truncated…😀");
  });

  it("counts 4 bytes per token in tokens mode", () => {
    const text = "a".repeat(100);
    expect(truncateText(text, { mode: "tokens", limit: 5 })).toBe(
      `Total output lines: 1\n\n${"a".repeat(10)}…20 tokens truncated…${"a".repeat(10)}`,
    );
  });

  it("never splits a character and keeps the content within budget (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 200 }), fc.integer({ min: 0, max: 120 }), (s, limit) => {
        const out = truncateText(s, { mode: "bytes", limit });
        if (Buffer.byteLength(s) <= limit) return out === s;
        const m = /^Total output lines: \d+\n\n([\s\S]*)…(\d+) chars truncated…([\s\S]*)$/.exec(out);
        if (!m) return false;
        const [, head, removed, tail] = m;
        const kept = Buffer.byteLength(head!) + Buffer.byteLength(tail!);
        return (
          !out.includes("\uFFFD") &&
          kept <= limit &&
          s.startsWith(head!) &&
          s.endsWith(tail!) &&
          Array.from(head!).length + Number(removed) + Array.from(tail!).length === Array.from(s).length
        );
      }),
    );
  });

  it("shares one budget across content items, keeps images, reports dropped text items", () => {
    const body = [
      { type: "input_text" as const, text: "12345" },
      { type: "input_image" as const, image_url: "data:image/png;base64,AA" },
      { type: "input_text" as const, text: "abcdefghij" },
      { type: "input_text" as const, text: "dropped" },
      { type: "input_text" as const, text: "dropped too" },
    ];
    expect(truncateBody(body, { mode: "bytes", limit: 9 })).toEqual([
      { type: "input_text", text: "12345" },
      { type: "input_image", image_url: "data:image/png;base64,AA" },
      { type: "input_text", text: "Total output lines: 1\n\nab…6 chars truncated…ij" },
      { type: "input_text", text: "[omitted 2 text items]" },
    ]);
    expect(truncateBody(body.slice(0, 2), { mode: "bytes", limit: 9 })).toEqual(body.slice(0, 2));
  });

  it("truncates a large output fast and to the budget", () => {
    const big = "0123456789\n".repeat(500_000);
    const out = truncateText(big, { mode: "bytes", limit: 10_000 });
    expect(out.startsWith("Total output lines: 500000\n\n")).toBe(true);
    expect(out).toContain("…5490000 chars truncated…");
  });

  it("createTurnContext fills defaults and rejects a bad policy", () => {
    const turn = createTurnContext();
    expect(turn.cwd).toBe(process.cwd());
    expect(turn.truncationPolicy).toEqual({ mode: "bytes", limit: 10_000 });
    expect(turn.toolCallGate.isReady()).toBe(true);
    expect(() => createTurnContext({ truncationPolicy: { mode: "words" as "bytes", limit: 1 } })).toThrow(/mode/);
    expect(() => createTurnContext({ truncationPolicy: { mode: "bytes", limit: -1 } })).toThrow(/limit/);
  });
});
