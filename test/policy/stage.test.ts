import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTurnContext,
  ToolCallRuntime,
  ToolRegistryBuilder,
  ToolRouter,
  type HookConfig,
  type ToolEvent,
  type ToolHandler,
} from "../../src/index.js";
import { fc, text } from "../support/harness.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "policy-stage-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A hook script that prints `stdout` and exits with `code`. */
async function hook(name: string, stdout: string, code = 0): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, `#!/bin/sh\ncat >/dev/null\nprintf '%s' '${stdout.replaceAll("'", "'\\''")}'\nexit ${code}\n`);
  await chmod(file, 0o755);
  return file;
}

const schema = {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
  additionalProperties: false,
};

function runtimeWith(hooks: HookConfig, started: string[]) {
  const handler: ToolHandler = {
    kind: "function",
    handle: async (inv) => {
      started.push(JSON.stringify(inv.args));
      return { kind: "function", body: `sunny in ${(inv.args as { city: string }).city}` };
    },
  };
  const { specs, registry } = new ToolRegistryBuilder()
    .pushSpec({ type: "function", name: "weather", description: "w", parameters: schema }, { parallel: true })
    .registerHandler("weather", handler)
    .build();
  const events: ToolEvent[] = [];
  const turn = createTurnContext({ cwd: dir, hooks, onEvent: (e) => events.push(e) });
  return { runtime: new ToolCallRuntime(new ToolRouter(registry, specs), turn), events };
}

describe("hooks through dispatch (DESIGN section 3 steps c and g)", () => {
  it("a PreToolUse deny answers the blocked text, emits approval_decided by hook, and the handler never starts", async () => {
    const deny = await hook(
      "deny.sh",
      JSON.stringify({
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "deny",
          permissionDecisionReason: "no weather on Sundays",
        },
      }),
    );
    const started: string[] = [];
    const { runtime, events } = runtimeWith(
      { PreToolUse: [{ matcher: "weather", hooks: [{ type: "command", command: deny }] }] },
      started,
    );
    runtime.submit(fc("c1", "weather", '{"city":"Oslo"}'));
    expect((await runtime.drain()).map(text)).toEqual([
      "Tool call blocked by PreToolUse hook: no weather on Sundays. Tool: weather",
    ]);
    expect(started).toEqual([]);
    expect(events.find((e) => e.type === "approval_decided")).toMatchObject({ decision: "deny", by: "hook" });
  });

  it("a rewritten input is validated again: a valid one reaches the handler, an invalid one is refused", async () => {
    const good = await hook(
      "good.sh",
      JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: { city: "Bergen" } } }),
    );
    const bad = await hook(
      "bad.sh",
      JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: { town: "Bergen" } } }),
    );
    const started: string[] = [];
    const ok = runtimeWith({ PreToolUse: [{ hooks: [{ type: "command", command: good }] }] }, started);
    ok.runtime.submit(fc("c1", "weather", '{"city":"Oslo"}'));
    expect((await ok.runtime.drain()).map(text)).toEqual(["sunny in Bergen"]);
    const refused = runtimeWith({ PreToolUse: [{ hooks: [{ type: "command", command: bad }] }] }, started);
    refused.runtime.submit(fc("c2", "weather", '{"city":"Oslo"}'));
    expect((await refused.runtime.drain()).map(text)).toEqual([
      "invalid arguments for weather: / must have required property 'city'; /town is not an allowed property",
    ]);
    expect(started).toEqual(['{"city":"Bergen"}']);
  });

  it("a PreToolUse ask with nobody to ask follows the no-approver rule", async () => {
    const ask = await hook(
      "ask.sh",
      JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask" } }),
    );
    const started: string[] = [];
    const handler: ToolHandler = { kind: "function", handle: async () => ({ kind: "function", body: "ran" }) };
    const { specs, registry } = new ToolRegistryBuilder()
      .pushSpec({ type: "function", name: "t", description: "t", parameters: { type: "object" } })
      .registerHandler("t", handler)
      .build();
    const runtime = new ToolCallRuntime(
      new ToolRouter(registry, specs),
      createTurnContext({ cwd: dir, hooks: { PreToolUse: [{ hooks: [{ type: "command", command: ask }] }] } }),
    );
    runtime.submit(fc("c1", "t"));
    expect((await runtime.drain()).map(text)).toEqual([
      "rejected: this call needs approval and no approver is configured",
    ]);
    expect(started).toEqual([]);
  });

  it("PostToolUse may block what the model sees or add context to it", async () => {
    const block = await hook("block.sh", JSON.stringify({ decision: "block", reason: "the forecast is classified" }));
    const context = await hook(
      "ctx.sh",
      JSON.stringify({ hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "source: met.no" } }),
    );
    const blocked = runtimeWith({ PostToolUse: [{ hooks: [{ type: "command", command: block }] }] }, []);
    blocked.runtime.submit(fc("c1", "weather", '{"city":"Oslo"}'));
    const [out] = await blocked.runtime.drainOutcomes();
    expect([text(out!.item), out!.success]).toEqual(["the forecast is classified", false]);
    const withContext = runtimeWith({ PostToolUse: [{ hooks: [{ type: "command", command: context }] }] }, []);
    withContext.runtime.submit(fc("c2", "weather", '{"city":"Oslo"}'));
    expect((await withContext.runtime.drain()).map(text)).toEqual(["sunny in Oslo\n\nsource: met.no"]);
  });
});
