import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createToolRouter,
  createTurnContext,
  PermissionEngine,
  ToolCallRuntime,
  type ApprovalRequest,
  type PermissionPolicy,
  type ToolEvent,
  type ToolRouter,
} from "../../src/index.js";
import { text } from "../support/harness.js";

let dir: string;
let router: ToolRouter;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "approvals-"));
  router = await createToolRouter({ shell: "shell" });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const touch = (callId: string, file: string) => ({
  type: "function_call",
  call_id: callId,
  name: "shell",
  arguments: JSON.stringify({ command: ["touch", file] }),
});

function turnOf(engine: PermissionEngine | undefined, onEvent?: (e: ToolEvent) => void) {
  const events: ToolEvent[] = [];
  const turn = createTurnContext({
    cwd: dir,
    ...(engine ? { permissions: engine } : {}),
    ...(onEvent !== undefined || engine?.approve === undefined
      ? {
          onEvent: (e: ToolEvent) => {
            events.push(e);
            onEvent?.(e);
          },
        }
      : {}),
  });
  return { turn, events };
}

const decided = (events: ToolEvent[]) =>
  events.flatMap((e) => (e.type === "approval_decided" ? [`${e.callId}:${e.decision}:${e.by}`] : []));

describe("approvals through the runtime (DESIGN section 11)", () => {
  it("asks policy.approve for a mutating call; allow runs it, deny answers `rejected by user: ...`", async () => {
    const asked: ApprovalRequest[] = [];
    const engine = new PermissionEngine({
      approve: async (req) => {
        asked.push(req);
        return req.callId === "yes" ? { decision: "allow" } : { decision: "deny", message: "not that file" };
      },
    });
    const runtime = new ToolCallRuntime(router, createTurnContext({ cwd: dir, permissions: engine }));
    runtime.submit(touch("yes", "allowed.txt"));
    runtime.submit(touch("no", "denied.txt"));
    const out = (await runtime.drain()).map(text);
    expect(out[0]).toMatch(/^Exit code: 0/);
    expect(out[1]).toBe("rejected by user: not that file");
    expect(existsSync(path.join(dir, "allowed.txt"))).toBe(true);
    expect(existsSync(path.join(dir, "denied.txt"))).toBe(false);
    expect(asked[0]).toMatchObject({
      callId: "yes",
      toolName: "shell",
      kind: "tool",
      summary: "touch allowed.txt",
      mutating: true,
      suggestedRules: ["shell(touch:*)"],
    });
  });

  it("a deny rule and read-only mode answer at once, by rule and by mode; known-safe reads pass", async () => {
    const byRule = turnOf(new PermissionEngine({ deny: ["shell(touch:*)"] }));
    const r1 = new ToolCallRuntime(router, byRule.turn);
    r1.submit(touch("r", "x.txt"));
    expect((await r1.drain()).map(text)).toEqual(['denied by policy: rule "shell(touch:*)" forbids this call']);
    expect(decided(byRule.events)).toEqual(["r:deny:rule"]);

    const readOnly = turnOf(new PermissionEngine({ mode: "read_only" }));
    const r2 = new ToolCallRuntime(router, readOnly.turn);
    r2.submit(touch("m", "y.txt"));
    r2.submit({ type: "function_call", call_id: "ls", name: "shell", arguments: JSON.stringify({ command: ["ls"] }) });
    const out = (await r2.drain()).map(text);
    expect(out[0]).toBe("denied by policy: shell may change files or state, which read-only mode forbids");
    expect(out[1]).toMatch(/^Exit code: 0/);
    expect(decided(readOnly.events)).toEqual(["m:deny:mode"]);
    expect(existsSync(path.join(dir, "x.txt")) || existsSync(path.join(dir, "y.txt"))).toBe(false);
  });

  it("without approve, asks through an approval_request event answered by respondToApproval", async () => {
    let runtime!: ToolCallRuntime;
    const { turn, events } = turnOf(new PermissionEngine(), (e) => {
      if (e.type === "approval_request") {
        expect(e.request).toMatchObject({ callId: "ev", summary: "touch event.txt" });
        setImmediate(() => runtime.respondToApproval(e.callId, { decision: "allow" }));
      }
    });
    runtime = new ToolCallRuntime(router, turn);
    runtime.submit(touch("ev", "event.txt"));
    expect((await runtime.drain()).map(text)[0]).toMatch(/^Exit code: 0/);
    expect(decided(events)).toEqual(["ev:allow:user"]);
    expect(runtime.respondToApproval("ev", { decision: "allow" })).toBe(false);
  });

  it("with nobody to ask, answers the no-approver text; unanswered in time, the timeout text", async () => {
    const none = new ToolCallRuntime(router, createTurnContext({ cwd: dir, permissions: new PermissionEngine() }));
    none.submit(touch("n", "n.txt"));
    expect((await none.drain()).map(text)).toEqual([
      "rejected: this call needs approval and no approver is configured",
    ]);

    const timed = turnOf(new PermissionEngine({ approvalTimeoutMs: 50 }), () => undefined);
    const runtime = new ToolCallRuntime(router, timed.turn);
    runtime.submit(touch("t", "t.txt"));
    expect((await runtime.drain()).map(text)).toEqual(["rejected: no approval within 0.1s"]);
    expect(decided(timed.events)).toEqual(["t:deny:timeout"]);
    expect(existsSync(path.join(dir, "n.txt")) || existsSync(path.join(dir, "t.txt"))).toBe(false);
  });

  it("allow_session is remembered by the engine: a later turn's matching call is not asked again", async () => {
    let asked = 0;
    const policy: PermissionPolicy = {
      approve: async () => {
        asked++;
        return { decision: "allow_session" };
      },
    };
    const engine = new PermissionEngine(policy);
    const first = new ToolCallRuntime(router, createTurnContext({ cwd: dir, permissions: engine }));
    first.submit(touch("s1", "s1.txt"));
    await first.drain();
    expect(engine.sessionRules()).toEqual(["shell(touch:*)"]);
    const later = new ToolCallRuntime(router, createTurnContext({ cwd: dir, permissions: engine }));
    later.submit(touch("s2", "s2.txt"));
    expect((await later.drain()).map(text)[0]).toMatch(/^Exit code: 0/);
    expect(asked).toBe(1);
  });

  it("abort ends the turn: the asking call is rejected by user, a queued call gets the aborted output", async () => {
    const engine = new PermissionEngine({ approve: async () => ({ decision: "abort" }) });
    const runtime = new ToolCallRuntime(router, createTurnContext({ cwd: dir, permissions: engine }), {
      maxConcurrency: 1,
    });
    runtime.submit(touch("a", "a.txt"));
    runtime.submit(touch("b", "b.txt"));
    const outcomes = await runtime.drainOutcomes();
    expect(outcomes.map((o) => [text(o.item).split("\n")[0], o.aborted])).toEqual([
      ["rejected by user", false],
      [expect.stringMatching(/^Wall time: \d+\.\d seconds$/), true],
    ]);
    expect(runtime.aborted).toBe(true);
  });

  it("a call waiting for approval holds its slot; an abort mid-wait answers it and nothing starts", async () => {
    let runtime!: ToolCallRuntime;
    const { turn, events } = turnOf(new PermissionEngine(), (e) => {
      if (e.type === "approval_request")
        setImmediate(() => {
          runtime.abort();
        });
    });
    runtime = new ToolCallRuntime(router, turn, { maxConcurrency: 1 });
    runtime.submit(touch("w", "w.txt"));
    runtime.submit({
      type: "function_call",
      call_id: "later",
      name: "shell",
      arguments: JSON.stringify({ command: ["ls"] }),
    });
    const outcomes = await runtime.drainOutcomes();
    expect(outcomes.map((o) => o.aborted)).toEqual([true, true]);
    expect(events.filter((e) => e.type === "tool_call_begin")).toEqual([]);
    expect(existsSync(path.join(dir, "w.txt"))).toBe(false);
  });
});

describe("the risk field (DESIGN section 11, OpenHands' risk prediction)", () => {
  it("mutating tools' schemas gain a required security_risk; read-only tools' do not", () => {
    const specs = router.specs({ riskField: true });
    const params = (name: string) => specs.find((s) => s.spec.type === "function" && s.spec.name === name)?.spec;
    expect(params("shell")).toMatchObject({
      parameters: {
        required: ["command", "security_risk"],
        properties: { security_risk: { enum: ["low", "medium", "high"] } },
      },
    });
    expect(JSON.stringify(params("read_file"))).not.toContain("security_risk");
    expect(JSON.stringify(router.specs())).not.toContain("security_risk");
  });

  it("askAtRisk turns the mode's allow into ask at or above the level; the field is stripped before the tool sees it", async () => {
    const asked: string[] = [];
    const engine = new PermissionEngine({
      mode: "bypass",
      riskField: true,
      askAtRisk: "medium",
      approve: async (req) => {
        asked.push(req.callId);
        return { decision: "deny", message: "too risky" };
      },
    });
    const runtime = new ToolCallRuntime(router, createTurnContext({ cwd: dir, permissions: engine }));
    const risky = (callId: string, file: string, risk?: string) => ({
      type: "function_call",
      call_id: callId,
      name: "shell",
      arguments: JSON.stringify({ command: ["touch", file], ...(risk !== undefined && { security_risk: risk }) }),
    });
    runtime.submit(risky("low", "low.txt", "low"));
    runtime.submit(risky("high", "high.txt", "high"));
    runtime.submit(risky("missing", "missing.txt"));
    const out = (await runtime.drain()).map((o) => text(o).split("\n")[0]);
    expect(out).toEqual(["Exit code: 0", "rejected by user: too risky", "rejected by user: too risky"]);
    expect(asked).toEqual(["high", "missing"]);
    expect(existsSync(path.join(dir, "low.txt"))).toBe(true);
  });
});
