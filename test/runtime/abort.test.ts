import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PermissionEngine, type ToolCallRuntime, type ToolHandler } from "../../src/index.js";
import { ControlledHandler, deferred, fc, flush, makeRuntime, Observer, text, waitFor } from "../support/harness.js";

/** Resolves with "pending" if `p` has not settled before the next macrotask. */
async function settledBeforeNextTask<T>(p: Promise<T>): Promise<T | "pending"> {
  return Promise.race([
    p,
    new Promise<"pending">((r) =>
      setImmediate(() => {
        r("pending");
      }),
    ),
  ]);
}

let unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};
beforeEach(() => {
  unhandled = [];
  process.on("unhandledRejection", onUnhandled);
});
afterEach(() => {
  process.off("unhandledRejection", onUnhandled);
});

describe("abort", () => {
  it("answers every pending call at once, queued calls never start, handlers see the signal", async () => {
    const obs = new Observer();
    const reader = new ControlledHandler(obs, { honourSignal: true });
    const writer = new ControlledHandler(obs);
    const { runtime, events } = makeRuntime([
      { name: "read", handler: reader, parallel: true },
      { name: "write", handler: writer, parallel: false },
    ]);
    runtime.submit(fc("r1", "read"));
    runtime.submit(fc("r2", "read"));
    runtime.submit(fc("w", "write"));
    runtime.submit(fc("r3", "read"));
    await waitFor(() => obs.active.size === 2, "readers running");

    runtime.abort();
    const outcomes = await settledBeforeNextTask(runtime.drainOutcomes());
    expect(outcomes).not.toBe("pending");
    if (outcomes === "pending") return;
    expect(outcomes.map((o) => o.callId)).toEqual(["r1", "r2", "w", "r3"]);
    for (const o of outcomes) {
      expect(o).toMatchObject({ success: false, aborted: true });
      expect(text(o.item)).toMatch(/^aborted by user after \d+\.\ds$/);
    }
    // At least 0.1 s is reported even for an instant abort.
    expect(text(outcomes[2]!.item)).toBe("aborted by user after 0.1s");
    expect(reader.invocations.get("r1")!.signal.aborted).toBe(true);

    await flush(10);
    writer.release("w");
    await flush(10);
    expect(obs.started.has("w")).toBe(false);
    expect(obs.started.has("r3")).toBe(false);
    expect(events.filter((e) => e.type === "tool_call_end")).toHaveLength(4);
    expect(unhandled).toEqual([]);
  });

  it("a submit after abort is answered at once with the aborted output", async () => {
    const { runtime } = makeRuntime([{ name: "read", handler: new ControlledHandler(new Observer()), parallel: true }]);
    runtime.abort();
    runtime.submit(fc("late", "read"));
    const out = await settledBeforeNextTask(runtime.drainOutcomes());
    expect(out).not.toBe("pending");
    expect(out !== "pending" && out[0]).toMatchObject({ callId: "late", aborted: true, success: false });
  });

  it("the runtime's signal option aborts it", async () => {
    const obs = new Observer();
    const ctl = new AbortController();
    const { runtime } = makeRuntime([{ name: "read", handler: new ControlledHandler(obs), parallel: true }], {
      signal: ctl.signal,
    });
    runtime.submit(fc("a", "read"));
    await waitFor(() => obs.started.has("a"), "start");
    ctl.abort();
    const out = await settledBeforeNextTask(runtime.drain());
    expect(out !== "pending" && text(out[0]!)).toMatch(/^aborted by user after/);
  });

  it("an aborted call answers with its handler's whole aborted text, which is given the elapsed time", async () => {
    const obs = new Observer();
    const handler = new ControlledHandler(obs, { partial: "line 1\nline 2" });
    const { runtime } = makeRuntime([{ name: "shell", handler, parallel: true }]);
    runtime.submit(fc("s", "shell"));
    await waitFor(() => obs.started.has("s"), "start");
    runtime.abort();
    const [item] = await runtime.drain();
    expect(text(item!)).toMatch(/^partial after \d+ms: line 1\nline 2$/);
  });

  it("knows no tool by name: a tool named shell without abortedOutput gets the default text", async () => {
    const obs = new Observer();
    const { runtime } = makeRuntime([{ name: "shell", handler: new ControlledHandler(obs), parallel: true }]);
    runtime.submit(fc("s", "shell"));
    await waitFor(() => obs.started.has("s"), "start");
    runtime.abort();
    const [item] = await runtime.drain();
    expect(text(item!)).toMatch(/^aborted by user after \d+\.\ds$/);
  });

  it("an aborted call keeps its exclusive slot until its handler settles", async () => {
    const obs = new Observer();
    const writer = new ControlledHandler(obs); // ignores the signal
    const { runtime, router } = makeRuntime([{ name: "write", handler: writer, parallel: false }]);
    const ctl = new AbortController();
    const first = runtime.handleToolCall(router.buildToolCall(fc("w1", "write"))!, ctl.signal);
    await waitFor(() => obs.started.has("w1"), "w1");
    const second = runtime.handleToolCall(router.buildToolCall(fc("w2", "write"))!);
    ctl.abort();
    const firstOutcome = await first;
    expect(firstOutcome.aborted).toBe(true);
    await flush(10);
    expect(obs.started.has("w2")).toBe(false); // w1's handler is still running
    writer.release("w1");
    await waitFor(() => obs.started.has("w2"), "w2 after w1 settled");
    expect(obs.overlapAtStart.get("w2")).toEqual([]);
    writer.release("w2");
    expect((await second).success).toBe(true);
  });

  it("a handler settling long after its call was aborted raises nothing", async () => {
    const late = deferred();
    const settled = deferred();
    const handler: ToolHandler = {
      kind: "function",
      async handle() {
        try {
          await late.promise;
          throw new Error("boom after abort");
        } finally {
          settled.resolve();
        }
      },
    };
    const { runtime, events } = makeRuntime([{ name: "slow", handler, parallel: true }]);
    runtime.submit(fc("s", "slow"));
    await flush(3);
    runtime.abort();
    const [item] = await runtime.drain();
    expect(text(item!)).toMatch(/^aborted by user after/);
    late.resolve();
    await settled.promise;
    await flush(10);
    expect(unhandled).toEqual([]);
    expect(events.filter((e) => e.type === "tool_call_end")).toHaveLength(1);
  });

  it("gives each call its own signal: listeners a handler leaves behind never pile up", async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error): void => void warnings.push(w);
    process.on("warning", onWarning);
    const signals: AbortSignal[] = [];
    const leaky: ToolHandler = {
      kind: "function",
      async handle(inv) {
        // Like the MCP SDK: a listener that is never removed.
        inv.signal.addEventListener("abort", () => undefined);
        signals.push(inv.signal);
        return { kind: "function", body: "ok" };
      },
    };
    const obs = new Observer();
    const hanging = new ControlledHandler(obs);
    const { runtime } = makeRuntime([
      { name: "leaky", handler: leaky, parallel: true },
      { name: "hang", handler: hanging, parallel: true },
    ]);
    for (let i = 0; i < 25; i++) {
      // Arguments of its own each: 25 identical calls with one result would be a loop.
      runtime.submit(fc(`l${i}`, "leaky", JSON.stringify({ i })));
      await runtime.drain();
    }
    runtime.submit(fc("h", "hang"));
    await waitFor(() => obs.started.has("h"), "hanging call");
    runtime.abort();
    await runtime.drain();
    await flush(3);
    process.off("warning", onWarning);
    expect(new Set(signals).size).toBe(25);
    // Finished calls are not touched by a later abort; the running one is.
    expect(signals.some((s) => s.aborted)).toBe(false);
    expect(hanging.invocations.get("h")!.signal.aborted).toBe(true);
    expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning")).toEqual([]);
  });

  it("a call aborted while queued leaves the queue at once: the calls it blocked start beside the running one", async () => {
    const obs = new Observer();
    const reader = new ControlledHandler(obs);
    const writer = new ControlledHandler(obs);
    const { runtime, router } = makeRuntime([
      { name: "read", handler: reader, parallel: true },
      { name: "write", handler: writer, parallel: false },
    ]);
    runtime.submit(fc("r1", "read"));
    await waitFor(() => obs.started.has("r1"), "r1");
    const ctl = new AbortController();
    const w = runtime.handleToolCall(router.buildToolCall(fc("w", "write"))!, ctl.signal);
    runtime.submit(fc("r2", "read"));
    await flush(5);
    expect(obs.started.has("r2")).toBe(false); // queued behind the writer
    ctl.abort();
    expect((await w).aborted).toBe(true);
    // r1 still runs: r2 can only start now because the aborted writer no longer holds its place.
    await waitFor(() => obs.started.has("r2"), "r2 beside r1");
    expect(obs.overlapAtStart.get("r2")).toEqual(["r1"]);
    reader.release("r1");
    reader.release("r2");
    expect((await runtime.drain()).map(text)).toEqual(["done r1", "done r2"]);
    expect(obs.started.has("w")).toBe(false);
  });

  it("abort drops a deep queue: every queued call is answered while the exclusive call ahead still runs", async () => {
    const obs = new Observer();
    const writer = new ControlledHandler(obs);
    const reader = new ControlledHandler(obs);
    const { runtime, events } = makeRuntime([
      { name: "write", handler: writer, parallel: false },
      { name: "read", handler: reader, parallel: true },
    ]);
    runtime.submit(fc("w", "write"));
    for (let i = 0; i < 5000; i++) runtime.submit(fc(`r${i}`, "read"));
    await waitFor(() => obs.started.has("w"), "writer");
    runtime.abort();
    const outcomes = await settledBeforeNextTask(runtime.drainOutcomes());
    expect(outcomes).not.toBe("pending");
    if (outcomes === "pending") return;
    expect(outcomes).toHaveLength(5001);
    expect(outcomes.every((o) => o.aborted)).toBe(true);
    writer.release("w");
    await flush(10);
    expect([...obs.started]).toEqual(["w"]);
    expect(events.filter((e) => e.type === "tool_call_begin")).toHaveLength(1);
  });

  it("a per-call signal aborts only its own call", async () => {
    const obs = new Observer();
    const h = new ControlledHandler(obs);
    const { runtime, router } = makeRuntime([{ name: "t", handler: h, parallel: true }]);
    const ctl = new AbortController();
    const a = runtime.handleToolCall(router.buildToolCall(fc("a", "t"))!, ctl.signal);
    const b = runtime.handleToolCall(router.buildToolCall(fc("b", "t"))!);
    await waitFor(() => obs.active.size === 2, "both running");
    ctl.abort("user pressed esc");
    expect((await a).aborted).toBe(true);
    expect(h.invocations.get("a")!.signal.aborted).toBe(true);
    expect(h.invocations.get("b")!.signal.aborted).toBe(false);
    h.release("b");
    expect((await b).success).toBe(true);
  });

  it("a call aborted while its mutating classification is pending never starts", async () => {
    const classified = deferred<boolean>();
    let handled = false;
    const handler: ToolHandler = {
      kind: "function",
      isMutating: () => classified.promise,
      async handle() {
        handled = true;
        return { kind: "function", body: "ran" };
      },
    };
    const { runtime, events } = makeRuntime([{ name: "slowclass", handler, parallel: true }]);
    runtime.submit(fc("s", "slowclass"));
    await flush(3);
    runtime.abort();
    classified.resolve(false);
    const [out] = await runtime.drainOutcomes();
    await flush(5);
    expect(out).toMatchObject({ aborted: true });
    expect(handled).toBe(false);
    expect(events.some((e) => e.type === "tool_call_begin")).toBe(false);
  });

  // Property seed -345781087: c0's approver answered "abort" in the hop between c2 passing its
  // policy stage and its handler starting, and c2 started in an aborted runtime. Which hop that
  // is depends on how many awaits each path takes: the second call is submitted after every
  // number of microtasks from none to past the abort.
  it("no call starts after another call's approval decided abort, whichever microtask the decision lands in", async () => {
    const startsAfterAbort: string[] = [];
    const startedBeforeAbort: number[] = [];
    for (let delay = 0; delay < 30; delay++) {
      let runtime: ToolCallRuntime | undefined;
      const handler: ToolHandler = {
        kind: "function",
        matchRule: (specifier, inv) => (inv.args as { tag: string }).tag === specifier,
        async handle(inv) {
          if (runtime?.aborted) startsAfterAbort.push(`${inv.callId} submitted ${delay} microtasks later`);
          else startedBeforeAbort.push(delay);
          return { kind: "function", body: "ran" };
        },
      };
      const permissions = new PermissionEngine({ ask: ["t(asked)"], approve: async () => ({ decision: "abort" }) });
      runtime = makeRuntime([{ name: "t", handler, parallel: true }], { turn: { permissions } }).runtime;
      runtime.submit(fc("asker", "t", JSON.stringify({ tag: "asked" })));
      for (let i = 0; i < delay; i++) await Promise.resolve();
      runtime.submit(fc("reader", "t", JSON.stringify({ tag: "free" })));
      const [asker, reader] = await runtime.drainOutcomes();
      expect(runtime.aborted).toBe(true);
      expect(asker).toMatchObject({ aborted: false, item: { output: expect.stringMatching(/^rejected by user/) } });
      if (!startedBeforeAbort.includes(delay)) expect(reader).toMatchObject({ aborted: true, success: false });
    }
    expect(startsAfterAbort).toEqual([]);
    // The sweep spans the window: submitted at once, the reader started before the abort.
    expect(startedBeforeAbort).toContain(0);
    expect(startedBeforeAbort).not.toContain(29);
  });

  it("an item that cannot become a call, submitted after abort, gets the aborted output", async () => {
    const { runtime } = makeRuntime([]);
    runtime.abort();
    runtime.submit(fc("late", "anything", 42));
    expect(await runtime.drainOutcomes()).toEqual([
      expect.objectContaining({
        callId: "late",
        aborted: true,
        item: expect.objectContaining({ output: "aborted by user after 0.1s" }),
      }),
    ]);
  });
});

describe("cancel one call and hear outcomes as they settle", () => {
  it("cancel answers that call as aborted, stops its handler and lets later calls run", async () => {
    const obs = new Observer();
    const handler = new ControlledHandler(obs, { honourSignal: true });
    const heard: string[] = [];
    const { runtime } = makeRuntime([{ name: "t", handler, parallel: false }], {
      onOutcome: (o) => heard.push(`${o.callId}:${o.aborted ? "aborted" : "done"}`),
    });
    runtime.submit(fc("a", "t"));
    runtime.submit(fc("b", "t"));
    runtime.submit(fc("c", "t"));
    await waitFor(() => obs.started.has("a"), "a to start");

    expect(runtime.cancel("b")).toBe(true); // queued: it never starts
    expect(runtime.cancel("a")).toBe(true); // running: its handler sees the signal
    expect(heard).toEqual(["b:aborted", "a:aborted"]);
    expect(handler.invocations.get("a")!.signal.aborted).toBe(true);
    expect(runtime.cancel("a")).toBe(false);
    expect(runtime.cancel("nope")).toBe(false);

    await waitFor(() => obs.started.has("c"), "c to start after a's handler settled");
    handler.release("c");
    const outcomes = await runtime.drainOutcomes();
    expect(outcomes.map((o) => [o.callId, text(o.item)])).toEqual([
      ["a", expect.stringMatching(/^aborted by user after/)],
      ["b", expect.stringMatching(/^aborted by user after/)],
      ["c", "done c"],
    ]);
    expect(obs.started.has("b")).toBe(false);
    expect(heard).toEqual(["b:aborted", "a:aborted", "c:done"]);
    expect(runtime.aborted).toBe(false);
  });

  it("an onOutcome listener that throws is logged and changes nothing", async () => {
    const obs = new Observer();
    const handler = new ControlledHandler(obs);
    const { runtime } = makeRuntime([{ name: "t", handler, parallel: true }], {
      onOutcome: () => {
        throw new Error("listener bug");
      },
    });
    runtime.submit(fc("a", "t"));
    handler.release("a");
    expect((await runtime.drainOutcomes()).map((o) => text(o.item))).toEqual(["done a"]);
    expect(unhandled).toEqual([]);
  });
});
