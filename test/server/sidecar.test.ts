import { describe, expect, it } from "vitest";
import {
  createToolRouter,
  createTurnContext,
  FunctionCallError,
  PermissionEngine,
  type ToolHandler,
} from "../../src/index.js";
import { SidecarServer, type SidecarSession } from "../../src/subpaths/server.js";
import { ControlledHandler, fc, makeRouter, Observer, waitFor } from "../support/harness.js";

type Message = Record<string, unknown> & { id?: unknown; method?: string };

/** A SidecarServer in process: lines in, parsed messages out. */
function connect(session: Omit<SidecarSession, "close">) {
  const sent: Message[] = [];
  let closed = 0;
  const server = new SidecarServer({
    open: () =>
      Promise.resolve({
        ...session,
        close: () => {
          closed++;
          return Promise.resolve();
        },
      }),
    send: (m) => sent.push(JSON.parse(m) as Message),
  });
  let id = 0;
  const call = async (method: string, params?: unknown): Promise<Message> => {
    const mine = ++id;
    server.handleLine(JSON.stringify({ jsonrpc: "2.0", id: mine, method, params }));
    await waitFor(() => sent.some((m) => m.id === mine && m.method === undefined), `the reply to ${method}`);
    return sent.find((m) => m.id === mine && m.method === undefined) as Message;
  };
  const result = async <T = Record<string, unknown>>(method: string, params?: unknown): Promise<T> =>
    (await call(method, params))["result"] as T;
  return { server, sent, call, result, closedCount: () => closed };
}

describe("SidecarServer (in process)", () => {
  it("a fatal error answers turn/drain with every output and the fatal call", async () => {
    const obs = new Observer();
    const slow = new ControlledHandler(obs, { honourSignal: true });
    const fatal: ToolHandler = {
      kind: "function",
      handle: () => Promise.reject(FunctionCallError.fatal("disk on fire")),
    };
    const router = makeRouter([
      { name: "slow", handler: slow, parallel: true },
      { name: "fatal", handler: fatal, parallel: true },
    ]);
    const { result, sent } = connect({ router, turn: createTurnContext() });
    await result("initialize");
    const { turnId } = await result<{ turnId: string }>("turn/start");
    await result("turn/submit", { turnId, item: fc("s", "slow") });
    await result("turn/submit", { turnId, item: fc("f", "fatal") });
    const drained = await result<{ outputs: Array<{ call_id: string; output: string }>; fatal: unknown }>(
      "turn/drain",
      { turnId },
    );
    expect(drained.fatal).toEqual({ callId: "f", message: "Fatal error: disk on fire" });
    expect(drained.outputs.map((o) => [o.call_id, o.output])).toEqual([
      ["s", expect.stringMatching(/^aborted after \d+\.\ds because the turn ended: Fatal error: disk on fire$/)],
      ["f", "Fatal error: disk on fire"],
    ]);
    // Streamed too, in call order, before the drain's reply.
    const outputs = sent
      .filter((m) => m.method === "turn/output")
      .map((m) => (m["params"] as { callId: string }).callId);
    expect(outputs).toEqual(["s", "f"]);
  });

  it("a client's error reply or malformed answer denies the approval or fails the dynamic call, saying why", async () => {
    const router = await createToolRouter(
      { shell: false, readFile: false, listDir: false, grepFiles: false, viewImage: false, updatePlan: false },
      { dynamicTools: [{ name: "lookup", description: "d", inputSchema: { type: "object" } }] },
    );
    const { server, sent, result } = connect({
      router,
      turn: createTurnContext({ permissions: new PermissionEngine({ ask: ["lookup(*)"] }) }),
    });
    await result("initialize");
    const { turnId } = await result<{ turnId: string }>("turn/start");
    const answer = (method: string, reply: (id: unknown) => object): void => {
      const request = sent.find((m) => m.method === method && !("answered" in m));
      if (!request) return;
      request["answered"] = true;
      server.handleLine(JSON.stringify({ jsonrpc: "2.0", ...reply(request.id) }));
    };
    await result("turn/submit", { turnId, item: fc("a", "lookup", '{"q":1}') });
    await result("turn/submit", { turnId, item: fc("b", "lookup", '{"q":2}') });
    await result("turn/submit", { turnId, item: fc("c", "lookup", '{"q":3}') });
    const drained = result<{ outputs: Array<{ call_id: string; output: unknown }> }>("turn/drain", { turnId });
    // a: the approval request is answered with an error.
    await waitFor(() => sent.some((m) => m.method === "approval/request"), "a's approval");
    answer("approval/request", (id) => ({ id, error: { code: 1, message: "user closed the window" } }));
    // b: allowed, then the dynamic call gets an answer of the wrong shape.
    await waitFor(() => sent.filter((m) => m.method === "approval/request").length === 2, "b's approval");
    answer("approval/request", (id) => ({ id, result: { decision: "allow" } }));
    await waitFor(() => sent.some((m) => m.method === "dynamic/call"), "b's dynamic call");
    answer("dynamic/call", (id) => ({ id, result: { success: true, contentItems: [{ type: "audio" }] } }));
    // c: allowed, answered properly.
    await waitFor(() => sent.filter((m) => m.method === "approval/request").length === 3, "c's approval");
    answer("approval/request", (id) => ({ id, result: { decision: "allow" } }));
    await waitFor(() => sent.filter((m) => m.method === "dynamic/call").length === 2, "c's dynamic call");
    answer("dynamic/call", (id) => ({
      id,
      result: { success: true, contentItems: [{ type: "input_text", text: "found" }] },
    }));

    const { outputs } = await drained;
    expect(outputs.map((o) => [o.call_id, o.output])).toEqual([
      ["a", "rejected by user: the client failed: user closed the window"],
      [
        "b",
        [
          {
            type: "input_text",
            text: "the client's answer has a content item that is neither input_text nor input_image",
          },
        ],
      ],
      ["c", [{ type: "input_text", text: "found" }]],
    ]);
    const dynamic = sent.find((m) => m.method === "dynamic/call");
    expect(dynamic?.["params"]).toEqual({ turnId, callId: "b", tool: "lookup", arguments: { q: 2 } });
  });

  it("forwards request_user_input as user_input/request; a malformed answer dismisses the questions", async () => {
    const question = {
      id: "pick",
      header: "Pick",
      question: "Which one?",
      options: [
        { label: "A", description: "first" },
        { label: "B", description: "second" },
      ],
    };
    const router = await createToolRouter({ requestUserInput: true, applyPatch: false, shell: false });
    const { server, sent, result } = connect({ router, turn: createTurnContext() });
    await result("initialize");
    const { turnId } = await result<{ turnId: string }>("turn/start");
    const args = JSON.stringify({ questions: [question] });
    await result("turn/submit", { turnId, item: fc("q1", "request_user_input", args) });
    await result("turn/submit", { turnId, item: fc("q2", "request_user_input", args) });
    const drained = result<{ outputs: Array<{ call_id: string; output: unknown }> }>("turn/drain", { turnId });
    await waitFor(() => sent.filter((m) => m.method === "user_input/request").length === 2, "both questions");
    const [first, second] = sent.filter((m) => m.method === "user_input/request");
    expect(first?.["params"]).toEqual({ turnId, callId: "q1", questions: [{ ...question, isOther: true }] });
    server.handleLine(
      JSON.stringify({ jsonrpc: "2.0", id: first!.id, result: { answers: { pick: { answers: ["B"] } } } }),
    );
    server.handleLine(JSON.stringify({ jsonrpc: "2.0", id: second!.id, result: { answers: "B" } }));
    const { outputs } = await drained;
    expect(outputs.map((o) => [o.call_id, o.output])).toEqual([
      ["q1", '{"answers":{"pick":{"answers":["B"]}}}'],
      ["q2", "request_user_input was cancelled before receiving a response"],
    ]);
    await server.close();
  });

  it("requests sent right behind initialize wait for it; shutdown aborts running turns and closes the session once", async () => {
    const obs = new Observer();
    const slow = new ControlledHandler(obs, { honourSignal: true });
    const { server, sent, closedCount } = connect({
      router: makeRouter([{ name: "slow", handler: slow, parallel: true }]),
      turn: createTurnContext(),
    });
    const line = (id: number, method: string, params?: unknown): string =>
      JSON.stringify({ jsonrpc: "2.0", id, method, params });
    server.handleLine(line(1, "initialize"));
    server.handleLine(line(2, "turn/start", { turnId: "t" }));
    server.handleLine(line(3, "turn/submit", { turnId: "t", item: fc("s", "slow") }));
    server.handleLine(line(4, "turn/drain", { turnId: "t" }));
    await waitFor(() => obs.started.has("s"), "the call to start");
    server.handleLine(line(5, "shutdown"));
    await waitFor(() => sent.some((m) => m.id === 5), "the shutdown reply");
    expect(sent.filter((m) => m.method === undefined).map((m) => m.id)).toEqual([1, 2, 3, 4, 5]);
    const drain = sent.find((m) => m.id === 4)?.["result"] as { outputs: Array<{ output: string }> };
    expect(drain.outputs[0]?.output).toMatch(/^aborted/);
    expect(closedCount()).toBe(1);
    await server.close();
    expect(closedCount()).toBe(1);
    server.handleLine(line(6, "turn/start"));
    await waitFor(() => sent.some((m) => m.id === 6), "the refusal");
    expect(sent.find((m) => m.id === 6)?.["error"]).toEqual({
      code: -32002,
      message: "Server not initialized: the server is shutting down",
    });
  });

  it("a shutdown while initialize is still opening the session closes that session before answering", async () => {
    let finishOpening!: () => void;
    let closed = 0;
    const sent: Message[] = [];
    const server = new SidecarServer({
      open: () =>
        new Promise<SidecarSession>((resolve) => {
          finishOpening = () => {
            resolve({
              router: makeRouter([]),
              turn: createTurnContext(),
              close: () => {
                closed++;
                return Promise.resolve();
              },
            });
          };
        }),
      send: (m) => sent.push(JSON.parse(m) as Message),
    });
    server.handleLine(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize" }));
    server.handleLine(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "shutdown" }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toEqual([]); // shutdown waits for initialize
    finishOpening();
    await waitFor(() => sent.length === 2, "both replies");
    expect(closed).toBe(1);
    expect(sent.map((m) => [m.id, m["error"] ?? m["result"]])).toEqual([
      [1, { code: -32002, message: "Server not initialized: the server is shutting down" }],
      [2, {}],
    ]);
  });
});
