import { describe, expect, it } from "vitest";
import {
  createTurnContext,
  ToolCallRuntime,
  ToolRegistryBuilder,
  ToolRouter,
  type QuotaConfig,
  type ToolEvent,
  type ToolHandler,
  type TurnContext,
} from "../../src/index.js";
import { SessionLedger } from "../../src/ledger/index.js";
import { LoopDetector, sameJson } from "../../src/ledger/loops.js";
import { Quotas } from "../../src/ledger/quotas.js";
import { outputBytes } from "../../src/ledger/usage.js";

const call = (callId: string, name: string, args: unknown = {}) => ({
  type: "function_call",
  call_id: callId,
  name,
  arguments: typeof args === "string" ? args : JSON.stringify(args),
});

/** Tools whose answers the test controls: `answers[tool]` is the next output; `ran` lists what ran. */
function session(opts: { quotas?: QuotaConfig; loopLimit?: number } = {}) {
  const ran: string[] = [];
  const answers: Record<string, string> = {};
  const handler: ToolHandler = {
    kind: "function",
    handle: async (inv) => {
      ran.push(inv.callId);
      if (inv.toolName === "fail") throw new Error("boom");
      return Promise.resolve({ kind: "function", body: answers[inv.toolName] ?? "same" });
    },
  };
  const builder = new ToolRegistryBuilder();
  for (const name of ["poll", "mcp__github__search", "mcp__github__issue", "shell", "fail"]) {
    builder
      .pushSpec({ type: "function", name, description: name, parameters: { type: "object", properties: {} } })
      .registerHandler(name, handler);
  }
  const { specs, registry } = builder.build();
  const router = new ToolRouter(registry, specs, undefined, opts);
  const events: ToolEvent[] = [];
  const turn = (): TurnContext => createTurnContext({ onEvent: (e) => events.push(e) });
  /** One turn: its items submitted, its outputs drained. */
  const runTurn = async (items: object[], context = turn()): Promise<string[]> => {
    const runtime = new ToolCallRuntime(router, context);
    for (const item of items) runtime.submit(item as never);
    return (await runtime.drain()).map((o) => String((o as { output: unknown }).output));
  };
  return { router, ran, answers, events, runTurn, turn };
}

describe("loop detection (DESIGN section 18)", () => {
  it("the same call with the same result 5 times in a row is answered the 6th time, not run, with an event", async () => {
    const s = session();
    const outputs: string[] = [];
    for (let i = 1; i <= 7; i++) outputs.push(...(await s.runTurn([call(`p${i}`, "poll", { b: 1, a: [2] })])));
    expect(s.ran).toEqual(["p1", "p2", "p3", "p4", "p5"]);
    const text = "this exact call ran 5 times with the same result; change the approach or the arguments";
    expect(outputs).toEqual(["same", "same", "same", "same", "same", text, text]);
    expect(s.events.filter((e) => e.type === "tool_call_loop")).toEqual([
      { type: "tool_call_loop", callId: "p6", toolName: "poll", count: 5 },
      { type: "tool_call_loop", callId: "p7", toolName: "poll", count: 5 },
    ]);
  });

  it("arguments in another key order or spacing are the same call", async () => {
    const s = session({ loopLimit: 2 });
    await s.runTurn([call("p1", "poll", '{"a": 1, "b": 2}'), call("p2", "poll", '{"b":2,"a":1}')]);
    expect(await s.runTurn([call("p3", "poll", '{ "b" : 2 , "a" : 1 }')])).toEqual([
      "this exact call ran 2 times with the same result; change the approach or the arguments",
    ]);
  });

  it("another output, other arguments or another call in between start the count again", async () => {
    const s = session({ loopLimit: 2 });
    await s.runTurn([call("p1", "poll", { a: 1 })]);
    s.answers["poll"] = "changed";
    await s.runTurn([call("p2", "poll", { a: 1 })]);
    await s.runTurn([call("p3", "poll", { a: 2 })]);
    await s.runTurn([call("p4", "poll", { a: 1 })]);
    await s.runTurn([call("x1", "shell", {})]);
    await s.runTurn([call("p5", "poll", { a: 1 })]);
    expect(s.ran).toEqual(["p1", "p2", "p3", "p4", "x1", "p5"]);
  });

  it("loopLimit 0 turns it off", async () => {
    const s = session({ loopLimit: 0 });
    for (let i = 0; i < 8; i++) await s.runTurn([call(`p${i}`, "poll")]);
    expect(s.ran).toHaveLength(8);
  });

  it("never throws on arguments nested too deep to normalize: they are another call", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    const loops = new LoopDetector(1);
    loops.ran("t", undefined, deep, "x");
    expect(() => {
      loops.ran("t", undefined, deep, "x");
    }).not.toThrow();
    expect(loops.repeats("t", undefined, deep)).toBeUndefined();
    // The same argument text is the same call without a look inside.
    expect(loops.repeats("t", "[[1]]", deep)).toBeUndefined();
    loops.ran("t", "[[1]]", deep, "x");
    expect(loops.repeats("t", "[[1]]", deep)).toBe(1);
  });

  it("compares arguments with keys in any order at every level, and nothing else loosely", () => {
    expect(sameJson({ b: [{ d: 1, c: 2 }], a: "x" }, { a: "x", b: [{ c: 2, d: 1 }] })).toBe(true);
    expect(sameJson({ b: [1, 2] }, { b: [2, 1] })).toBe(false);
    expect(sameJson({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(sameJson({ a: 1, c: 2 }, { a: 1, b: 2 })).toBe(false);
    expect(sameJson({ a: "1" }, { a: 1 })).toBe(false);
    expect(sameJson({ 0: "x" }, ["x"])).toBe(false);
    expect(sameJson(["x"], { 0: "x" })).toBe(false);
    expect(sameJson({ a: null }, { a: {} })).toBe(false);
  });

  it("rejects a loop limit that is not a non-negative integer", () => {
    expect(() => new SessionLedger({ loopLimit: -1 })).toThrow(/loopLimit must be a non-negative integer/);
    expect(() => new SessionLedger({ loopLimit: 1.5 })).toThrow(/loopLimit/);
  });
});

describe("quotas (DESIGN section 18)", () => {
  it("a pattern's budget per turn is shared by the tools it names, and comes back in the next turn", async () => {
    const s = session({ quotas: { "mcp__github__*": { perTurn: 2 } }, loopLimit: 0 });
    const first = await s.runTurn([
      call("g1", "mcp__github__search"),
      call("g2", "mcp__github__issue"),
      call("g3", "mcp__github__search"),
      call("x1", "shell"),
    ]);
    expect(first).toEqual(["same", "same", "quota exceeded: mcp__github__* may run 2 times per turn", "same"]);
    expect(s.ran).toEqual(["g1", "g2", "x1"]);
    expect(await s.runTurn([call("g4", "mcp__github__issue")])).toEqual(["same"]);
  });

  it("a session quota holds across turns", async () => {
    const s = session({ quotas: { shell: { perSession: 2 } }, loopLimit: 0 });
    await s.runTurn([call("s1", "shell")]);
    await s.runTurn([call("s2", "shell")]);
    expect(await s.runTurn([call("s3", "shell")])).toEqual(["quota exceeded: shell may run 2 times per session"]);
    expect(s.ran).toEqual(["s1", "s2"]);
  });

  it("every pattern naming a tool applies; a refused call counts toward none", () => {
    const quotas = new Quotas({ "*": { perTurn: 3 }, shell: { perTurn: 1 } });
    const turn = {};
    expect(quotas.admit("shell", turn)).toBeUndefined();
    expect(quotas.admit("shell", turn)).toBe("quota exceeded: shell may run 1 times per turn");
    expect(quotas.admit("poll", turn)).toBeUndefined();
    expect(quotas.admit("poll", turn)).toBeUndefined();
    expect(quotas.admit("poll", turn)).toBe("quota exceeded: * may run 3 times per turn");
  });

  it("rejects a malformed quota config naming the key", () => {
    expect(() => new Quotas({ shell: { perTurn: -1 } })).toThrow(
      'quotas["shell"].perTurn must be a non-negative integer, got -1',
    );
    expect(() => new Quotas({ shell: { perturn: 1 } as never })).toThrow('quotas["shell"]: unknown key perturn');
    expect(() => new Quotas({ "": { perTurn: 1 } })).toThrow(/must not be empty/);
    expect(() => new Quotas([] as never)).toThrow(/quotas must map/);
  });

  it("a pattern's regex characters are literal", () => {
    const quotas = new Quotas({ "a.b*": { perTurn: 0 } });
    expect(quotas.admit("axb", {})).toBeUndefined();
    expect(quotas.admit("a.bc", {})).toBe("quota exceeded: a.b* may run 0 times per turn");
  });
});

describe("usage per tool (DESIGN section 18)", () => {
  it("counts calls, failures, denials, repairs, handler time and output size; tool_call_end carries the tokens", async () => {
    const s = session({ quotas: { shell: { perTurn: 1 } } });
    s.answers["poll"] = "x".repeat(10);
    await s.runTurn([
      call("p1", "poll", { a: 1 }),
      call("p2", "poll", "{a: 2}"),
      call("f1", "fail"),
      call("s1", "shell"),
      call("s2", "shell"),
      call("u1", "unknown_tool"),
    ]);
    const usage = s.router.usage();
    expect(Object.keys(usage).sort()).toEqual(["fail", "poll", "shell"]);
    expect(usage["poll"]).toMatchObject({ calls: 2, failures: 0, denials: 0, repairs: 1 });
    // 10 bytes, and the repaired one's note line before them.
    const note = "note: arguments were repaired: quoted unquoted keys\n";
    expect(usage["poll"]?.bytes).toBe(20 + note.length);
    expect(usage["poll"]?.tokens).toBe(Math.ceil(10 / 4) + Math.ceil((10 + note.length) / 4));
    expect(usage["fail"]).toMatchObject({ calls: 1, failures: 1, denials: 0 });
    expect(usage["shell"]).toMatchObject({ calls: 2, failures: 0, denials: 1 });
    for (const tool of Object.values(usage)) {
      expect(tool.handlerMs.total).toBeGreaterThanOrEqual(0);
      expect(tool.handlerMs.p95).toBeGreaterThanOrEqual(tool.handlerMs.p50);
    }
    const ends = s.events.filter((e) => e.type === "tool_call_end");
    expect(ends.find((e) => e.callId === "p1")).toMatchObject({ tokens: 3 });
    expect(ends.find((e) => e.callId === "u1")).toMatchObject({
      tokens: Math.ceil("unsupported call: unknown_tool".length / 4),
    });
  });

  it("a policy denial counts as a denial", async () => {
    const s = session();
    const { PermissionEngine } = await import("../../src/index.js");
    const context = createTurnContext({ permissions: new PermissionEngine({ deny: ["shell"] }) });
    expect(await s.runTurn([call("s1", "shell")], context)).toEqual([expect.stringMatching(/^denied by policy/)]);
    expect(s.router.usage()["shell"]).toMatchObject({ calls: 1, denials: 1, failures: 0 });
  });

  it("calls run by router.dispatch, outside a runtime, count and feed loop detection", async () => {
    const s = session({ loopLimit: 2 });
    const dispatch = async (callId: string): Promise<unknown> => {
      const built = s.router.buildToolCall(call(callId, "poll", { a: 1 }));
      const result = await s.router.dispatch(built!, { turn: s.turn(), signal: new AbortController().signal });
      return result.item.output;
    };
    expect([await dispatch("d1"), await dispatch("d2"), await dispatch("d3")]).toEqual([
      "same",
      "same",
      "this exact call ran 2 times with the same result; change the approach or the arguments",
    ]);
    expect(s.ran).toEqual(["d1", "d2"]);
    expect(s.router.usage()["poll"]).toMatchObject({ calls: 3, denials: 1, failures: 0, bytes: 8 + 86 });
  });
});

describe("output size", () => {
  it("counts UTF-8 bytes as Buffer.byteLength does: short and long, 2-, 3- and 4-byte characters, lone surrogates", () => {
    const samples = [
      "",
      "ok",
      "é",
      "€uro",
      "😀",
      "a😀b",
      "\ud800",
      "x\udc00y",
      "\ud83d",
      "é".repeat(40),
      "😀".repeat(40),
    ];
    for (const output of samples) {
      expect(outputBytes({ type: "function_call_output", call_id: "c", output }), JSON.stringify(output)).toBe(
        Buffer.byteLength(output),
      );
    }
    const parts = [{ type: "input_text" as const, text: "h€llo" }];
    expect(outputBytes({ type: "function_call_output", call_id: "c", output: parts })).toBe(7);
  });
});
