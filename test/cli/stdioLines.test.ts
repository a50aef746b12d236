import { PassThrough, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { LineBatcher, readLines } from "../../src/cli/stdioLines.js";

function collect(input: PassThrough) {
  const lines: string[] = [];
  let ends = 0;
  const reader = readLines(
    input,
    (line) => lines.push(line),
    () => ends++,
  );
  return { lines, ends: () => ends, reader };
}

describe("the sidecar's stdio lines", () => {
  it("splits chunks at \\n and \\r\\n, joins a line cut across chunks (a UTF-8 character too), ends with the last line", async () => {
    const input = new PassThrough();
    const { lines, ends } = collect(input);
    const euro = Buffer.from("€"); // three bytes, cut after the first
    input.write('{"a":1}\r\n{"b":');
    input.write(Buffer.concat([Buffer.from('"x'), euro.subarray(0, 1)]));
    input.write(Buffer.concat([euro.subarray(1), Buffer.from('"}\n\n{"c":3}\n{"last":true}')]));
    input.end();
    await new Promise<void>((resolve) => input.once("end", resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toEqual(['{"a":1}', '{"b":"x€"}', "", '{"c":3}', '{"last":true}']);
    expect(ends()).toBe(1);
  });

  it("stop: reads nothing more and reports the end once", async () => {
    const input = new PassThrough();
    const { lines, ends, reader } = collect(input);
    input.write("one\n");
    await new Promise((resolve) => setImmediate(resolve));
    reader.stop();
    input.write("two\n");
    input.end();
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toEqual(["one"]);
    expect(ends()).toBe(1);
  });

  it("every line pushed in one event-loop turn goes out in one write, in order", async () => {
    const writes: string[] = [];
    const out = new Writable({
      write(chunk: Buffer, _encoding, done) {
        writes.push(chunk.toString());
        done();
      },
    });
    const batcher = new LineBatcher(out);
    for (let i = 0; i < 100; i++) batcher.push(`{"id":${i}}`);
    await new Promise((resolve) => setImmediate(resolve));
    batcher.push("next");
    await batcher.flushed();
    expect(writes.filter((w) => w !== "")).toEqual([
      Array.from({ length: 100 }, (_, i) => `{"id":${i}}\n`).join(""),
      "next\n",
    ]);
  });
});
