import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatExecOutput } from "../../../src/handlers/shell/format.js";
import { HeadTailBuffer } from "../../../src/handlers/shell/outputBuffer.js";
import { captureFor } from "../../../src/handlers/shell/outputBuffer.js";
import { boundCaptured, truncateText, type TruncationPolicy } from "../../../src/turn/index.js";

/** Feeds `text` to a capture sized for `policy`, in chunks of `chunk` bytes. */
function capture(text: string, policy: TruncationPolicy, chunk: number): HeadTailBuffer {
  const buf = captureFor(policy);
  const bytes = Buffer.from(text, "utf8");
  for (let i = 0; i < bytes.length; i += chunk) buf.append(bytes.subarray(i, i + chunk));
  return buf;
}

/** What the core truncation gives for the whole text, with its header moved out. */
function expected(text: string, policy: TruncationPolicy): { text: string; truncated: boolean } {
  const out = truncateText(text, policy);
  if (out === text) return { text, truncated: false };
  return { text: out.replace(/^Total output lines: \d+\n\n/, ""), truncated: true };
}

describe("boundCaptured on a capture", () => {
  it("matches the core truncation of the whole text, even after the capture dropped its middle", () => {
    const textArb = fc.string({ unit: fc.constantFrom("a", "\n", "é", "語", "🙂", "z"), maxLength: 400 });
    fc.assert(
      fc.property(
        textArb,
        fc.record({
          mode: fc.constantFrom("bytes" as const, "tokens" as const),
          limit: fc.integer({ min: 0, max: 120 }),
        }),
        fc.integer({ min: 1, max: 37 }),
        (text, policy, chunk) => {
          const got = boundCaptured("", capture(text, policy, chunk).snapshot(), policy);
          const want = expected(text, policy);
          expect(got.text).toBe(want.text);
          expect(got.truncated).toBe(want.truncated);
          expect(got.totalLines).toBe(text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0));
        },
      ),
      { numRuns: 400 },
    );
  });

  it("puts a prefix at the head of the content", () => {
    const policy: TruncationPolicy = { mode: "bytes", limit: 20 };
    const text = "x".repeat(100);
    const got = boundCaptured("timed out\n", capture(text, policy, 7).snapshot(), policy);
    expect(got.text).toBe(expected(`timed out\n${text}`, policy).text);
    expect(got.totalLines).toBe(2);
  });
});

describe("HeadTailBuffer", () => {
  it("never holds more than its caps, however much is appended", () => {
    const buf = new HeadTailBuffer(100, 50);
    for (let i = 0; i < 1000; i++) buf.append(Buffer.alloc(997, (i % 26) + 97));
    expect(buf.totalBytes).toBe(997_000);
    expect(buf.retainedBytes).toBe(150);
    expect(buf.peakRetainedBytes).toBe(150);
    const snap = buf.snapshot();
    expect(snap.omittedBytes).toBe(997_000 - 150);
    expect(snap.omittedChars).toBe(997_000 - 150);
  });

  it("rejects bad caps", () => {
    expect(() => new HeadTailBuffer(-1, 1)).toThrow(/non-negative integers/);
  });
});

describe("formatExecOutput", () => {
  const policy: TruncationPolicy = { mode: "bytes", limit: 10_000 };
  const snap = (text: string) => capture(text, policy, 64).snapshot();

  it("has exit code, wall time and output", () => {
    expect(
      formatExecOutput({ exitCode: 0, durationMs: 1234, timedOut: false, timeoutMs: 10_000 }, snap("hi\n"), policy),
    ).toBe("Exit code: 0\nWall time: 1.2 seconds\nOutput:\nhi\n");
  });

  it("starts the content with the timeout message", () => {
    expect(
      formatExecOutput({ exitCode: 124, durationMs: 300, timedOut: true, timeoutMs: 250 }, snap("x"), policy),
    ).toBe("Exit code: 124\nWall time: 0.3 seconds\nOutput:\ncommand timed out after 250 milliseconds\nx");
  });

  it("adds the total line count only when truncated", () => {
    const small: TruncationPolicy = { mode: "bytes", limit: 10 };
    const text = "line\n".repeat(10);
    const out = formatExecOutput(
      { exitCode: 1, durationMs: 0, timedOut: false, timeoutMs: 1 },
      capture(text, small, 3).snapshot(),
      small,
    );
    expect(out).toBe(
      "Exit code: 1\nWall time: 0.0 seconds\nTotal output lines: 10\nOutput:\nline\n…40 chars truncated…line\n",
    );
  });
});
