import { describe, expect, it } from "vitest";
import { createTurnContext, type ToolHandler } from "../../src/index.js";
import { SidecarServer } from "../../src/subpaths/server.js";
import { fc, makeRouter, waitFor } from "../support/harness.js";

type Message = Record<string, unknown> & { id?: unknown; method?: string };

const echo: ToolHandler = {
  kind: "function",
  handle: (inv) => Promise.resolve({ kind: "function", body: `out ${inv.callId}`, success: true }),
};

/** A three-call turn through a SidecarServer initialized with `init`: every message it sent, and the drain's. */
async function turnWith(init: Record<string, unknown>): Promise<{ sent: Message[]; drain: Message }> {
  const sent: Message[] = [];
  const server = new SidecarServer({
    open: () =>
      Promise.resolve({
        router: makeRouter([{ name: "echo", handler: echo, parallel: true }]),
        turn: createTurnContext(),
        close: () => Promise.resolve(),
      }),
    send: (m) => sent.push(JSON.parse(m) as Message),
  });
  const lines = [
    { id: 1, method: "initialize", params: init },
    { id: 2, method: "turn/start", params: { turnId: "t" } },
    ...["a", "b", "c"].map((c, i) => ({
      id: 3 + i,
      method: "turn/submit",
      params: { turnId: "t", item: fc(c, "echo") },
    })),
    { id: 6, method: "turn/drain", params: { turnId: "t" } },
  ];
  for (const line of lines) server.handleLine(JSON.stringify({ jsonrpc: "2.0", ...line }));
  await waitFor(() => sent.some((m) => m.id === 6), "the drain's reply");
  await server.close();
  return { sent, drain: sent.find((m) => m.id === 6) as Message };
}

const streamed = (sent: Message[]): string[] =>
  sent.filter((m) => m.method === "turn/output").map((m) => (m["params"] as { callId: string }).callId);

describe("sidecar initialize { outputs }: each output crosses the pipe once", () => {
  it('"stream": every output once as turn/output, in call order and before the drain, which answers the call ids', async () => {
    const { sent, drain } = await turnWith({ outputs: "stream" });
    expect(streamed(sent)).toEqual(["a", "b", "c"]);
    expect(drain["result"]).toEqual({ callIds: ["a", "b", "c"] });
    expect(sent.findIndex((m) => m.id === 6)).toBeGreaterThan(sent.findLastIndex((m) => m.method === "turn/output"));
    const outputs = sent.filter((m) => JSON.stringify(m).includes('"out a"'));
    expect(outputs).toHaveLength(1);
  });

  it('"drain": nothing streams; the drain answers every output', async () => {
    const { sent, drain } = await turnWith({ outputs: "drain" });
    expect(streamed(sent)).toEqual([]);
    const { outputs } = drain["result"] as { outputs: Array<{ call_id: string; output: string }> };
    expect(outputs.map((o) => [o.call_id, o.output])).toEqual([
      ["a", "out a"],
      ["b", "out b"],
      ["c", "out c"],
    ]);
  });

  it("absent: both, as DESIGN section 13 was first written (existing clients read the drain's outputs)", async () => {
    const { sent, drain } = await turnWith({});
    expect(streamed(sent)).toEqual(["a", "b", "c"]);
    expect((drain["result"] as { outputs: unknown[] }).outputs).toHaveLength(3);
  });

  it("absent: the drain answers exactly what streamed, in every format (a Chat output with an image: a list, then two messages)", async () => {
    const pictured: ToolHandler = {
      kind: "function",
      handle: (inv) =>
        Promise.resolve({
          kind: "function",
          body: [
            { type: "input_text", text: `seen ${inv.callId}` },
            { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=" },
          ],
        }),
    };
    const sent: Message[] = [];
    const server = new SidecarServer({
      open: () =>
        Promise.resolve({
          router: makeRouter([
            { name: "echo", handler: echo, parallel: true },
            { name: "look", handler: pictured, parallel: true },
          ]),
          turn: createTurnContext(),
          close: () => Promise.resolve(),
        }),
      send: (m) => sent.push(JSON.parse(m) as Message),
    });
    const chatCall = (id: string, name: string) => ({
      role: "assistant",
      tool_calls: [{ id, type: "function", function: { name, arguments: "{}" } }],
    });
    const lines = [
      { id: 1, method: "initialize", params: {} },
      { id: 2, method: "turn/start", params: { turnId: "t" } },
      { id: 3, method: "turn/submit", params: { turnId: "t", item: fc("a", "echo") } },
      { id: 4, method: "turn/submit", params: { turnId: "t", item: chatCall("b", "look") } },
      { id: 5, method: "turn/submit", params: { turnId: "t", item: chatCall("c", "echo") } },
      {
        id: 6,
        method: "turn/submit",
        params: { turnId: "t", item: { type: "tool_use", id: "d", name: "look", input: {} } },
      },
      { id: 7, method: "turn/drain", params: { turnId: "t" } },
    ];
    for (const line of lines) server.handleLine(JSON.stringify({ jsonrpc: "2.0", ...line }));
    await waitFor(() => sent.some((m) => m.id === 7), "the drain's reply");
    await server.close();
    const items = sent.filter((m) => m.method === "turn/output").map((m) => (m["params"] as { item: unknown }).item);
    const { outputs } = sent.find((m) => m.id === 7)?.["result"] as { outputs: unknown[] };
    expect(outputs).toEqual(items.flatMap((item) => (Array.isArray(item) ? item : [item])));
    expect(items).toHaveLength(4);
    expect(outputs).toHaveLength(5);
    expect(items[1]).toMatchObject([{ role: "tool", tool_call_id: "b" }, { role: "user" }]);
    expect(JSON.stringify(items[1])).toContain("data:image/png;base64,iVBORw0KGgo=");
    expect(items[3]).toMatchObject({ type: "tool_result", tool_use_id: "d" });
  });

  it("a bad value is refused naming the field and the choices", async () => {
    const { sent } = await turnWith({ outputs: "twice" });
    expect(sent.find((m) => m.id === 1)?.["error"]).toEqual({
      code: -32602,
      message: expect.stringMatching(/outputs.*"stream", "drain", "both".*twice/) as unknown,
    });
  });
});
