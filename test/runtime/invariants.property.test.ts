import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  FunctionCallError,
  outputCallId,
  ReadinessFlag,
  type ToolHandler,
  type ToolInvocation,
  type ToolOutput,
} from "../../src/index.js";
import { fc as functionCall, flush, makeRuntime, text } from "../support/harness.js";
import { HOSTILE_THROWS, MALFORMED_OUTPUTS } from "../support/hostile.js";

type Behavior =
  "ok" | "fail" | "throw" | "respond" | "hang" | "hangIgnoringSignal" | "throwHostile" | "returnMalformed";
const HOSTILE = Object.values(HOSTILE_THROWS).map((h) => h.value);
const MALFORMED = Object.values(MALFORMED_OUTPUTS).map((m) => m.value);
interface Op {
  parallel: boolean;
  mutating: boolean;
  behavior: Behavior;
  ticks: number;
  pick: number;
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));
async function ticks(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await tick();
}

const opArb = fc.record<Op>({
  parallel: fc.boolean(),
  mutating: fc.boolean(),
  behavior: fc.constantFrom<Behavior>(
    "ok",
    "ok",
    "fail",
    "throw",
    "respond",
    "hang",
    "hangIgnoringSignal",
    "throwHostile",
    "returnMalformed",
  ),
  ticks: fc.integer({ min: 0, max: 4 }),
  /** Which hostile value a `throwHostile` / `returnMalformed` call uses. */
  pick: fc.nat(),
});

const scenarioArb = fc.record({
  ops: fc.array(opArb, { minLength: 1, maxLength: 16 }),
  maxConcurrency: fc.integer({ min: 1, max: 4 }),
  gateOpensAt: fc.option(fc.integer({ min: 0, max: 12 }), { nil: undefined }),
  abortAt: fc.option(fc.integer({ min: 0, max: 25 }), { nil: undefined }),
  submitGap: fc.integer({ min: 0, max: 2 }),
});

let unhandled: unknown[] = [];
const onUnhandled = (r: unknown): void => void unhandled.push(r);
beforeAll(() => void process.on("unhandledRejection", onUnhandled));
afterAll(() => void process.off("unhandledRejection", onUnhandled));

describe("runtime invariants over random call mixes (property)", () => {
  it("keeps invariants 1, 2, 3, 4, 7 and 9 for shared, exclusive, mutating, failing, throwing, hostile, malformed, hanging and aborted calls", async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (s) => {
        unhandled = [];
        let seq = 0;
        const started = new Map<string, number>();
        const ended = new Map<string, number>();
        const active = new Map<string, boolean>(); // callId -> exclusive?
        const violations: string[] = [];
        let gateOpenedSeq: number | undefined;
        const stragglers: Promise<void>[] = [];

        const make = (exclusive: boolean): ToolHandler => ({
          kind: "function",
          isMutating: (inv: ToolInvocation) => (inv.args as { op: Op }).op.mutating,
          async handle(inv) {
            const { op } = inv.args as { op: Op };
            const id = inv.callId;
            if (exclusive && active.size > 0)
              violations.push(`exclusive ${id} started while ${[...active.keys()].join(",")} ran`);
            for (const [other, otherExcl] of active)
              if (otherExcl) violations.push(`${id} started during exclusive ${other}`);
            if (op.mutating && gateOpenedSeq === undefined)
              violations.push(`mutating ${id} started before the gate opened`);
            started.set(id, seq++);
            active.set(id, exclusive);
            const done = (): void => {
              active.delete(id);
              ended.set(id, seq++);
            };
            try {
              if (op.behavior === "hang") {
                await new Promise<void>((_, reject) => {
                  if (inv.signal.aborted) reject(new Error("aborted"));
                  inv.signal.addEventListener(
                    "abort",
                    () => {
                      reject(new Error("aborted"));
                    },
                    { once: true },
                  );
                });
              }
              if (op.behavior === "hangIgnoringSignal") {
                const late = new Promise<void>((resolve) => {
                  const wait = (): void =>
                    void (inv.signal.aborted ? ticks(op.ticks + 3).then(resolve) : setImmediate(wait));
                  wait();
                });
                stragglers.push(late);
                await late;
                throw new Error("settled long after abort");
              }
              await ticks(op.ticks);
              if (op.behavior === "fail") return { kind: "function", body: "failed", success: false };
              if (op.behavior === "throw") throw new Error("handler bug");
              if (op.behavior === "respond") throw FunctionCallError.respondToModel("bad input");
              if (op.behavior === "throwHostile") throw HOSTILE[op.pick % HOSTILE.length]!();
              if (op.behavior === "returnMalformed") return MALFORMED[op.pick % MALFORMED.length]!() as ToolOutput;
              return { kind: "function", body: "ok" };
            } finally {
              done();
            }
          },
        });

        const gate = new ReadinessFlag();
        const token = gate.subscribe();
        const { runtime } = makeRuntime(
          [
            { name: "shared", handler: make(false), parallel: true },
            { name: "exclusive", handler: make(true), parallel: false },
          ],
          { maxConcurrency: s.maxConcurrency, turn: { toolCallGate: gate } },
        );
        // Something must end hanging calls and a gate that never opens: abort at the end then.
        const needsAbort =
          s.ops.some((o) => o.behavior.startsWith("hang")) ||
          (s.gateOpensAt === undefined && s.ops.some((o) => o.mutating));
        const abortAt = s.abortAt ?? (needsAbort ? 40 : undefined);

        const ids = s.ops.map((_, i) => `c${i}`);
        const timeline = (async () => {
          for (let t = 0; t <= 45; t++) {
            if (t === s.gateOpensAt) {
              gateOpenedSeq = seq++;
              gate.markReady(token);
            }
            if (t === abortAt) runtime.abort();
            await tick();
          }
        })();
        for (const [i, op] of s.ops.entries()) {
          runtime.submit(functionCall(ids[i]!, op.parallel ? "shared" : "exclusive", JSON.stringify({ op })));
          await ticks(s.submitGap);
        }
        const outputs = await runtime.drain();
        await timeline;
        await Promise.all(stragglers);
        await flush(5);

        // 1: exactly one output per call, in submission order.
        expect(outputs.map(outputCallId)).toEqual(ids);
        // 9: a hostile throw or a malformed output is answered `tool {name} failed: ...` unless aborted first.
        for (const [i, op] of s.ops.entries()) {
          if (op.behavior !== "throwHostile" && op.behavior !== "returnMalformed") continue;
          expect(text(outputs[i]!)).toMatch(/^(tool (shared|exclusive) failed: |aborted by user after )/);
        }
        // 2 and 4: checked at each start.
        expect(violations).toEqual([]);
        // 3: a call starts only after every earlier conflicting call has finished.
        for (let j = 0; j < ids.length; j++) {
          const sj = started.get(ids[j]!);
          if (sj === undefined) continue;
          for (let i = 0; i < j; i++) {
            const conflicting = !s.ops[i]!.parallel || !s.ops[j]!.parallel;
            const ei = ended.get(ids[i]!);
            if (conflicting && started.has(ids[i]!)) expect(ei !== undefined && ei < sj).toBe(true);
            if (conflicting && !started.has(ids[i]!)) expect(runtime.aborted).toBe(true);
          }
        }
        // 7: nothing escaped.
        expect(unhandled).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });
});
