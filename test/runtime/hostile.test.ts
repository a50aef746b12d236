import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ToolHandler, type ToolOutput } from "../../src/index.js";
import { fc, makeRuntime, text } from "../support/harness.js";
import { HOSTILE_THROWS, MALFORMED_OUTPUTS } from "../support/hostile.js";

let unhandled: unknown[] = [];
const onUnhandled = (r: unknown): void => void unhandled.push(r);
beforeAll(() => void process.on("unhandledRejection", onUnhandled));
afterAll(() => void process.off("unhandledRejection", onUnhandled));

/** A real pino logger at the most verbose level: serializing a hostile error must not lose the call. */
const loudLogger = () =>
  pino(
    { level: "trace" },
    new Writable({
      write: (_chunk, _enc, done) => {
        done();
      },
    }),
  );

const thrower = (value: () => unknown): ToolHandler => ({
  kind: "function",
  handle: async () => {
    throw value();
  },
});
const returner = (value: () => unknown): ToolHandler => ({
  kind: "function",
  handle: async () => value() as ToolOutput,
});

describe("every call answered, whatever its handler throws or returns (invariant 9)", () => {
  for (const [name, { value, text: want }] of Object.entries(HOSTILE_THROWS)) {
    it(`a thrown ${name} answers 'tool t failed: ...'`, async () => {
      unhandled = [];
      const { runtime, events } = makeRuntime([{ name: "t", handler: thrower(value) }], {
        turn: { logger: loudLogger() },
      });
      expect(runtime.submit(fc("c1", "t"))).toEqual({ accepted: true, callId: "c1" });
      const [out] = await runtime.drain();
      const got = text(out!);
      expect(got.startsWith("tool t failed: "), got).toBe(true);
      if (typeof want === "string") expect(got).toBe(`tool t failed: ${want}`);
      else expect(got.slice("tool t failed: ".length)).toMatch(want);
      expect(events.filter((e) => e.type === "tool_call_end")).toHaveLength(1);
      await new Promise((r) => setImmediate(r));
      expect(unhandled).toEqual([]);
    });
  }

  for (const [name, { value, text: want }] of Object.entries(MALFORMED_OUTPUTS)) {
    it(`a returned ${name} gets a clear contract error`, async () => {
      unhandled = [];
      const { runtime } = makeRuntime([{ name: "t", handler: returner(value) }], {
        turn: { logger: loudLogger() },
      });
      runtime.submit(fc("c1", "t"));
      const outcomes = await runtime.drainOutcomes();
      expect(outcomes).toHaveLength(1);
      expect(outcomes[0]).toMatchObject({ callId: "c1", success: false, aborted: false });
      expect(text(outcomes[0]!.item)).toMatch(typeof want === "string" ? new RegExp(`^${want}$`) : want);
      expect(text(outcomes[0]!.item)).toMatch(/^tool t failed: /);
      await new Promise((r) => setImmediate(r));
      expect(unhandled).toEqual([]);
    });
  }

  it("a hostile value thrown by isMutating, supportsParallel or abortedOutput still answers the call", async () => {
    unhandled = [];
    const hostile = HOSTILE_THROWS["proxy whose traps throw"]!.value;
    const { runtime } = makeRuntime(
      [
        {
          name: "m",
          handler: {
            kind: "function",
            isMutating: () => {
              throw hostile();
            },
            handle: async () => ({ kind: "function", body: "never" }),
          },
        },
        {
          name: "p",
          parallel: true,
          handler: {
            kind: "function",
            supportsParallel: () => {
              throw hostile();
            },
            abortedOutput: () => {
              throw hostile();
            },
            handle: (inv) =>
              new Promise<ToolOutput>((resolve) => {
                inv.signal.addEventListener("abort", () => {
                  resolve({ kind: "function", body: "late" });
                });
              }),
          },
        },
      ],
      { turn: { logger: loudLogger() } },
    );
    runtime.submit(fc("c1", "m"));
    runtime.submit(fc("c2", "p"));
    await new Promise((r) => setTimeout(r, 20));
    runtime.abort();
    const outputs = (await runtime.drain()).map(text);
    expect(outputs[0]).toBe("tool m failed: unknown error");
    expect(outputs[1]).toMatch(/^aborted by user after \d+\.\ds$/);
    await new Promise((r) => setImmediate(r));
    expect(unhandled).toEqual([]);
  });

  it("a submitted item whose every trap throws is rejected, not thrown", async () => {
    const { runtime, events } = makeRuntime([]);
    const item = new Proxy(
      {},
      {
        get: () => {
          throw new Error("no");
        },
      },
    ) as never;
    expect(runtime.submit(item)).toEqual({ accepted: false, reason: "unreadable item: no" });
    expect(events.map((e) => e.type)).toEqual(["tool_call_rejected"]);
    expect(await runtime.drain()).toEqual([]);
  });
});
