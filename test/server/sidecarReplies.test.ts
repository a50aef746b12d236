import { describe, expect, it } from "vitest";
import { createTurnContext, type ToolHandler } from "../../src/index.js";
import { SidecarServer } from "../../src/subpaths/server.js";
import { fc, makeRouter, waitFor } from "../support/harness.js";

type Message = Record<string, unknown> & { id?: unknown; method?: string };

/** Answers at once (a resolved promise): its output is ready one microtask after the submit. */
const quick: ToolHandler = {
  kind: "function",
  handle: (inv) => Promise.resolve({ kind: "function", body: `out ${inv.callId}`, success: true }),
};

describe("sidecar replies: pipelined requests answered in order, each before what it announced", () => {
  it("each submit's reply comes before its call's turn/output, and a bad submit's error keeps its place among the replies", async () => {
    const sent: Message[] = [];
    const server = new SidecarServer({
      open: () =>
        Promise.resolve({
          router: makeRouter([{ name: "quick", handler: quick, parallel: true }]),
          turn: createTurnContext(),
          close: () => Promise.resolve(),
        }),
      send: (m) => sent.push(JSON.parse(m) as Message),
    });
    const send = (id: number, method: string, params: unknown): void => {
      server.handleLine(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    };
    send(1, "initialize", { outputs: "stream" });
    await waitFor(() => sent.some((m) => m.id === 1), "initialize's reply");
    send(2, "turn/start", { turnId: "t" });
    // Pipelined as a client writes them: one synchronous run of lines, no waiting in between.
    send(3, "turn/submit", { turnId: "t", item: fc("a", "quick") });
    send(4, "turn/submit", { turnId: "t", item: 5 });
    send(5, "turn/submit", { turnId: "t", item: fc("b", "quick") });
    send(6, "turn/drain", { turnId: "t" });
    await waitFor(() => sent.some((m) => m.id === 6), "the drain's reply");
    await server.close();

    const replies = sent.filter((m) => m.method === undefined).map((m) => m.id);
    expect(replies).toEqual([1, 2, 3, 4, 5, 6]);
    expect(sent.find((m) => m.id === 4)?.["error"]).toEqual({
      code: -32602,
      message: "item: expected a JSON object or array, got 5",
    });
    const at = (pred: (m: Message) => boolean): number => sent.findIndex(pred);
    const output = (callId: string) => (m: Message) =>
      m.method === "turn/output" && (m["params"] as { callId: string }).callId === callId;
    expect(at(output("a"))).toBeGreaterThan(at((m) => m.id === 3));
    expect(at(output("b"))).toBeGreaterThan(at((m) => m.id === 5));
    expect(sent.find((m) => m.id === 6)?.["result"]).toEqual({ callIds: ["a", "b"] });
  });
});
