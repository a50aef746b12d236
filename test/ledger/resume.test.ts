// Quotas and durable turns (DESIGN sections 17, 18): a resumed turn keeps its counts.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  FileJournal,
  ToolCallRuntime,
  ToolRegistryBuilder,
  ToolRouter,
  createTurnContext,
  type QuotaConfig,
  type ResponseInputItem,
} from "../../src/index.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const call = (callId: string) => ({
  type: "function_call" as const,
  call_id: callId,
  name: "write",
  // Arguments of its own each: the same call with the same result would be a loop.
  arguments: JSON.stringify({ id: callId }),
});

/** A router with one tool, `write`, and its quotas; `ran` lists the calls its handler ran. */
function router(quotas: QuotaConfig, ran: string[]): ToolRouter {
  const { specs, registry } = new ToolRegistryBuilder()
    .pushSpec({ type: "function", name: "write", description: "write", parameters: { type: "object" } })
    .registerHandler("write", {
      kind: "function",
      handle: async (inv) => {
        ran.push(inv.callId);
        return Promise.resolve({ kind: "function", body: `wrote ${inv.callId}` });
      },
    })
    .build();
  return new ToolRouter(registry, specs, undefined, { quotas });
}

const outputs = (items: ResponseInputItem[]): string[] =>
  items.map((o) => (typeof o.output === "string" ? o.output : JSON.stringify(o.output)));

/** Turn `t-1` journaled in a new directory: `w1` and `w2` ran and were drained, the turn not ended. */
async function journaledTurn(r: ToolRouter): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ledger-resume-"));
  dirs.push(dir);
  const runtime = new ToolCallRuntime(r, createTurnContext({ journal: new FileJournal(dir) }), { turnId: "t-1" });
  runtime.submit(call("w1"));
  runtime.submit(call("w2"));
  expect(outputs(await runtime.drain())).toEqual(["wrote w1", "wrote w2"]);
  return dir;
}

const QUOTAS = { write: { perTurn: 2, perSession: 3 } };
const PAST_TURN = "quota exceeded: write may run 2 times per turn";

describe("quotas across a resumed turn", () => {
  it("a new process resuming the turn counts what its journal says ran", async () => {
    const dir = await journaledTurn(router(QUOTAS, []));
    // The agent's process died: a new router (a new session ledger) resumes the turn.
    const ran: string[] = [];
    const fresh = router(QUOTAS, ran);
    const resumed = await ToolCallRuntime.resume(fresh, createTurnContext({ journal: new FileJournal(dir) }), {
      turnId: "t-1",
    });
    resumed.submit(call("w3"));
    expect(outputs(await resumed.drain())).toEqual(["wrote w1", "wrote w2", PAST_TURN]);
    expect(ran).toEqual([]);
    // The two calls of the resumed turn count toward the new session too: one more may run.
    const next = new ToolCallRuntime(fresh, createTurnContext());
    next.submit(call("w4"));
    next.submit(call("w5"));
    expect(outputs(await next.drain())).toEqual(["wrote w4", "quota exceeded: write may run 3 times per session"]);
  });

  it("the same router resuming its own turn keeps its counts and does not count them twice", async () => {
    const ran: string[] = [];
    const r = router(QUOTAS, ran);
    const dir = await journaledTurn(r);
    const resumed = await ToolCallRuntime.resume(r, createTurnContext({ journal: new FileJournal(dir) }), {
      turnId: "t-1",
    });
    resumed.submit(call("w3"));
    expect(outputs(await resumed.drain())).toEqual(["wrote w1", "wrote w2", PAST_TURN]);
    const next = new ToolCallRuntime(r, createTurnContext());
    next.submit(call("w4"));
    expect(outputs(await next.drain())).toEqual(["wrote w4"]);
    expect(ran).toEqual(["w1", "w2", "w4"]);
  });

  it("without a journal, two runtimes given the same turn id are two turns", async () => {
    const r = router({ write: { perTurn: 1 } }, []);
    for (const id of ["a", "b"]) {
      const runtime = new ToolCallRuntime(r, createTurnContext(), { turnId: "same" });
      runtime.submit(call(id));
      expect(outputs(await runtime.drain())).toEqual([`wrote ${id}`]);
    }
  });
});
