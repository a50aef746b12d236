import { describe, expect, it, vi } from "vitest";
import { OutputDeltas } from "../../../src/handlers/shell/outputDeltas.js";
import { createTurnContext, type ToolEvent } from "../../../src/index.js";

function deltas(): { out: OutputDeltas; chunks: Array<{ stream: string; chunk: string }> } {
  const chunks: Array<{ stream: string; chunk: string }> = [];
  const turn = createTurnContext({
    onEvent: (e: ToolEvent) => {
      if (e.type === "exec_command_output_delta") chunks.push({ stream: e.stream, chunk: e.chunk });
    },
  });
  return { out: new OutputDeltas(turn, "c", "shell"), chunks };
}

describe("exec_command_output_delta throttling", () => {
  it("coalesces many small chunks into one event per stream per interval", async () => {
    const { out, chunks } = deltas();
    for (let i = 0; i < 1000; i++) out.push(i % 2 ? "stderr" : "stdout", Buffer.from(`${i}\n`));
    expect(chunks).toHaveLength(0);
    await vi.waitFor(
      () => {
        expect(chunks).toHaveLength(2);
      },
      { timeout: 2_000, interval: 5 },
    );
    expect(chunks.map((c) => c.stream)).toEqual(["stdout", "stderr"]);
    expect(chunks[0]?.chunk.split("\n")).toHaveLength(501);
    out.end();
    expect(chunks).toHaveLength(2);
  });

  it("keeps a character split across chunks whole, and flushes what is pending at the end", () => {
    const { out, chunks } = deltas();
    const bytes = Buffer.from("é語🙂", "utf8");
    for (let i = 0; i < bytes.length; i++) out.push("stdout", bytes.subarray(i, i + 1));
    out.end();
    expect(chunks).toEqual([{ stream: "stdout", chunk: "é語🙂" }]);
  });
});
