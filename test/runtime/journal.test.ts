// Durable turns (DESIGN section 17): the journal's records, resume, replay.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  FileJournal,
  PermissionEngine,
  ToolCallRuntime,
  ToolRegistryBuilder,
  ToolRouter,
  createTurnContext,
  type JournalRecord,
  outputCallId,
  outputContent,
  type ResponseInputItem,
  type ToolEvent,
  type ToolHandler,
  type TurnJournal,
} from "../../src/index.js";

const dirs: string[] = [];
const releases: Array<() => void> = [];
afterEach(() => {
  for (const release of releases.splice(0)) release();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "journal-rt-"));
  dirs.push(dir);
  return dir;
}

/** Tools whose runs are counted; `hang` calls block until the test ends (a crash mid-call). */
function tools() {
  const runs: string[] = [];
  /** Off after the "crash": calls run again do not hang. */
  const state = { hang: true };
  const make = (mutating: boolean): ToolHandler => ({
    kind: "function",
    ...(mutating && { isMutating: () => true }),
    handle: async (inv) => {
      runs.push(inv.callId);
      const { hang } = inv.args as { hang?: boolean };
      if (hang && state.hang) await new Promise<void>((resolve) => releases.push(resolve));
      return { kind: "function", body: `${inv.toolName} ran ${inv.callId}` };
    },
  });
  const spec = (name: string, idempotent = false) => ({
    type: "function" as const,
    name,
    description: name,
    parameters: { type: "object", properties: { hang: { type: "boolean" }, n: { type: "integer" } } },
    ...(idempotent && { annotations: { idempotentHint: true } }),
  });
  const { specs, registry } = new ToolRegistryBuilder()
    // Parallel, so calls can hang side by side (the lock is not under test here).
    .pushSpecWithParallelSupport(spec("write"), true)
    .registerHandler("write", make(true))
    .pushSpecWithParallelSupport(spec("put", true), true)
    .registerHandler("put", make(true))
    .pushSpecWithParallelSupport(spec("read"), true)
    .registerHandler("read", make(false))
    .build();
  return { router: new ToolRouter(registry, specs), runs, state };
}
const call = (callId: string, name: string, args: Record<string, unknown> = {}) => ({
  type: "function_call",
  call_id: callId,
  name,
  arguments: JSON.stringify(args),
});
const texts = (items: ResponseInputItem[]) => items.map((o) => [outputCallId(o), outputContent(o)]);

describe("a journaled turn", () => {
  it("records accepted, started, outcome and turn_end; an output is on disk before anyone is handed it", async () => {
    const dir = tmp();
    const journal = new FileJournal(dir);
    const { router } = tools();
    const file = journal.fileOf("t-1");
    const onDiskWhenHanded: boolean[] = [];
    const runtime = new ToolCallRuntime(router, createTurnContext({ journal }), {
      turnId: "t-1",
      onOutcome: (o) =>
        onDiskWhenHanded.push(readFileSync(file, "utf8").includes(`"type":"outcome","callId":"${o.callId}"`)),
    });
    expect(runtime.turnId).toBe("t-1");
    runtime.submit(call("a", "read"));
    runtime.submit(call("b", "write", { n: 1 }));
    runtime.submit(call("c", "nope"));
    expect(texts(await runtime.drain())).toEqual([
      ["a", "read ran a"],
      ["b", "write ran b"],
      ["c", "unsupported call: nope"],
    ]);
    expect(onDiskWhenHanded).toEqual([true, true, true]);
    await runtime.endTurn();
    const records = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as JournalRecord);
    expect(records.map((r) => `${r.type}${"callId" in r ? ` ${r.callId}` : ""}`)).toEqual(
      expect.arrayContaining([
        "accepted a",
        "accepted b",
        "accepted c",
        "started a",
        "started b",
        "outcome a",
        "outcome b",
        "outcome c",
      ]),
    );
    expect(records.at(-1)?.type).toBe("turn_end");
    expect(records.find((r) => r.type === "started" && r.callId === "b")).toMatchObject({
      mutating: true,
      idempotent: false,
    });
    await journal.close();
  });

  it("every runtime has a turn id", () => {
    const { router } = tools();
    expect(new ToolCallRuntime(router, createTurnContext()).turnId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("resumed after a crash: recorded outputs as they were, a running mutating call interrupted, safe calls run again", async () => {
    const dir = tmp();
    const { router, runs, state } = tools();
    const first = new FileJournal(dir);
    const handed: Array<[string, unknown]> = [];
    const before = new ToolCallRuntime(router, createTurnContext({ journal: first }), {
      turnId: "t-2",
      onOutcome: (o) => handed.push([o.callId, (o.item as { output: unknown }).output]),
    });
    const items = [
      call("done", "write", { n: 1 }),
      call("w", "write", { hang: true }),
      call("r", "read", { hang: true }),
      call("p", "put", { hang: true }),
    ];
    for (const item of items) before.submit(item);
    await expect.poll(() => runs.length).toBe(4);
    // Handed out once its record is durable: that fsync may come after the other calls started.
    await expect.poll(() => handed).toEqual([["done", "write ran done"]]);
    // The process "dies": the old runtime is never drained, a new one reads the journal.
    const runsBefore = runs.length;
    state.hang = false;
    const resumed = await ToolCallRuntime.resume(router, createTurnContext({ journal: new FileJournal(dir) }), {
      turnId: "t-2",
    });
    // Submitting the turn's items again is safe: nothing runs twice, nothing is answered twice.
    for (const item of items) expect(resumed.submit(item)).toEqual({ accepted: true, callId: item.call_id });
    for (const release of releases.splice(0)) release();
    expect(texts(await resumed.drain())).toEqual([
      ["done", "write ran done"],
      [
        "w",
        "interrupted: write was running when the agent stopped; it may or may not have taken effect. Check before running it again.",
      ],
      ["r", "read ran r"],
      ["p", "put ran p"],
    ]);
    // Only the read and the idempotent put ran again.
    expect(runs.slice(runsBefore).sort()).toEqual(["p", "r"]);
  });

  it("an approval answered after a restart completes the call", async () => {
    const dir = tmp();
    const { router, runs } = tools();
    const permissions = new PermissionEngine({ ask: ["write"] });
    const asked: string[] = [];
    const before = new ToolCallRuntime(
      router,
      createTurnContext({
        journal: new FileJournal(dir),
        permissions,
        onEvent: (e) => e.type === "approval_request" && asked.push(e.callId),
      }),
      { turnId: "t-3" },
    );
    before.submit(call("x", "write", { n: 2 }));
    await expect.poll(() => asked).toEqual(["x"]);
    let resumed: ToolCallRuntime | undefined;
    const turn = createTurnContext({
      journal: new FileJournal(dir),
      permissions,
      onEvent: (e) => {
        if (e.type === "approval_request")
          setImmediate(() => resumed?.respondToApproval(e.callId, { decision: "allow" }));
      },
    });
    resumed = await ToolCallRuntime.resume(router, turn, { turnId: "t-3" });
    expect(texts(await resumed.drain())).toEqual([["x", "write ran x"]]);
    expect(runs).toEqual(["x"]);
    before.abort();
    const records = readFileSync(path.join(dir, "t-3.jsonl"), "utf8");
    expect(records).toContain('"type":"approval_decided","callId":"x","decision":{"decision":"allow"}');
  });

  it("a journaled answer is not asked again after a restart", async () => {
    const dir = tmp();
    const { router, runs } = tools();
    const permissions = new PermissionEngine({ ask: ["write"] });
    const journal = new FileJournal(dir);
    await journal.append({
      turnId: "t-4",
      type: "accepted",
      callId: "y",
      tool: "write",
      item: call("y", "write"),
      parallel: false,
    });
    await journal.append({ turnId: "t-4", type: "approval_requested", callId: "y" });
    await journal.append({ turnId: "t-4", type: "approval_decided", callId: "y", decision: { decision: "allow" } });
    const events: ToolEvent[] = [];
    const resumed = await ToolCallRuntime.resume(
      router,
      createTurnContext({ journal, permissions, onEvent: (e) => events.push(e) }),
      { turnId: "t-4" },
    );
    expect(texts(await resumed.drain())).toEqual([["y", "write ran y"]]);
    expect(runs).toEqual(["y"]);
    expect(events.filter((e) => e.type === "approval_request")).toEqual([]);
  });

  it("resume without a journal says what is missing", async () => {
    const { router } = tools();
    await expect(ToolCallRuntime.resume(router, createTurnContext(), { turnId: "x" })).rejects.toThrow(
      "ToolCallRuntime.resume needs the turn's journal",
    );
  });

  it("a journal that cannot record a mutating call's start keeps it from running; outputs still come", async () => {
    const { router, runs } = tools();
    const failing: TurnJournal = {
      append: (r) =>
        r.type === "started" || r.type === "outcome" ? Promise.reject(new Error("disk full")) : undefined,
      load: async function* () {},
      close: async () => {},
    };
    const runtime = new ToolCallRuntime(router, createTurnContext({ journal: failing }));
    runtime.submit(call("w", "write"));
    runtime.submit(call("r", "read"));
    const out = texts(await runtime.drain());
    expect(out[0]?.[1]).toContain("disk full");
    expect(out[1]).toEqual(["r", "read ran r"]);
    expect(runs).toEqual(["r"]);
  });
});

describe("replay within one runtime", () => {
  it("the same call id and call again gets the first output; other arguments are rejected", async () => {
    const { router, runs } = tools();
    const events: ToolEvent[] = [];
    const runtime = new ToolCallRuntime(router, createTurnContext({ onEvent: (e) => events.push(e) }));
    expect(runtime.submit(call("a", "write", { n: 1 }))).toEqual({ accepted: true, callId: "a" });
    // Again before it was drained: one output in that drain.
    expect(runtime.submit(call("a", "write", { n: 1 }))).toEqual({ accepted: true, callId: "a" });
    expect(texts(await runtime.drain())).toEqual([["a", "write ran a"]]);
    // Again after: the first output again, not a second run.
    expect(runtime.submit(call("a", "write", { n: 1 }))).toEqual({ accepted: true, callId: "a" });
    expect(texts(await runtime.drain())).toEqual([["a", "write ran a"]]);
    // And again, with a second call drained between: still the first output, still one run.
    expect(runtime.submit(call("b", "write", { n: 1 }))).toEqual({ accepted: true, callId: "b" });
    expect(runtime.submit(call("a", "write", { n: 1 }))).toEqual({ accepted: true, callId: "a" });
    expect(texts(await runtime.drain())).toEqual([
      ["b", "write ran b"],
      ["a", "write ran a"],
    ]);
    expect(runtime.submit(call("a", "write", { n: 2 }))).toEqual({
      accepted: false,
      callId: "a",
      reason: "duplicate call id: a",
    });
    expect(runs).toEqual(["a", "b"]);
    expect(events.filter((e) => e.type === "tool_call_replayed")).toHaveLength(3);
  });

  it("once an id has come again, finds every call's first answer: drained many drains back, accepted later, drained or not", async () => {
    const { router, runs } = tools();
    const runtime = new ToolCallRuntime(router, createTurnContext());
    for (let i = 0; i < 50; i++) runtime.submit(call(`c${i}`, "write", { n: i }));
    await runtime.drain();
    // The turn's first repeated id: found among the calls drained before.
    runtime.submit(call("c7", "write", { n: 7 }));
    expect(texts(await runtime.drain())).toEqual([["c7", "write ran c7"]]);
    // A call accepted after that: found before its drain, and after it.
    runtime.submit(call("late", "write", { n: 1 }));
    runtime.submit(call("late", "write", { n: 1 }));
    expect(texts(await runtime.drain())).toEqual([["late", "write ran late"]]);
    runtime.submit(call("late", "write", { n: 1 }));
    runtime.submit(call("c49", "write", { n: 49 }));
    expect(texts(await runtime.drain())).toEqual([
      ["late", "write ran late"],
      ["c49", "write ran c49"],
    ]);
    expect(runtime.submit(call("late", "write", { n: 2 }))).toEqual({
      accepted: false,
      callId: "late",
      reason: "duplicate call id: late",
    });
    expect(runs).toHaveLength(51);
    expect(runtime.callIds()).toEqual([...Array.from({ length: 50 }, (_, i) => `c${i}`), "late"]);
  });

  it("makes a turn id once, when first read, and keeps it", () => {
    const { router } = tools();
    const runtime = new ToolCallRuntime(router, createTurnContext());
    const id = runtime.turnId;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(runtime.turnId).toBe(id);
    expect(new ToolCallRuntime(router, createTurnContext()).turnId).not.toBe(id);
    expect(() => new ToolCallRuntime(router, createTurnContext(), { turnId: "" })).toThrow(
      /turnId must be a non-empty string/,
    );
  });
});
