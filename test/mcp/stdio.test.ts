import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpConnectionManager, type ToolEvent } from "../../src/index.js";
import { MAX_RESTART_ATTEMPTS } from "../../src/mcp/index.js";
import { LONG_TOOL_NAME, TINY_PNG } from "../fixtures/mcp-server.js";
import { call, eventually, FIXTURE, fixtureServer, isAlive, runtimeFor } from "./helpers.js";

let manager: McpConnectionManager;
const SECRET = `TOOLCALL_MCP_SECRET_${process.pid}`;
const PASSED = `TOOLCALL_MCP_PASSED_${process.pid}`;
const UNSET = `TOOLCALL_MCP_UNSET_${process.pid}`;
const OVERRIDDEN = `TOOLCALL_MCP_OVERRIDDEN_${process.pid}`;

beforeAll(async () => {
  process.env[SECRET] = "leak";
  process.env[PASSED] = "from parent";
  process.env[OVERRIDDEN] = "from parent";
  manager = McpConnectionManager.start({
    fx: fixtureServer("default", { env: { FIXTURE_GIVEN: "given" } }),
    fast: fixtureServer("default", { toolTimeoutSec: 0.4, disabledTools: ["fail"] }),
    // "dotted.name" is listed before "dotted_name" and would take the plain qualified name.
    picky: fixtureServer("default", {
      enabledTools: ["echo", "env", "dotted.name", "dotted_name"],
      disabledTools: ["dotted.name"],
      envVars: [PASSED, UNSET, OVERRIDDEN],
      env: { [OVERRIDDEN]: "from env" },
    }),
  });
  await manager.waitForStartup();
});

afterAll(async () => {
  for (const name of [SECRET, PASSED, OVERRIDDEN]) delete process.env[name];
  await manager.close();
});

describe("MCP over stdio through the runtime", () => {
  it("routes a qualified function_call to the server and returns its text", async () => {
    const { runtime, events } = await runtimeFor(manager);
    runtime.submit(call("c1", "mcp__fx__echo", { text: "hello" }));
    const [out] = await runtime.drainOutcomes();
    expect(out?.item).toEqual({ type: "function_call_output", call_id: "c1", output: "hello" });
    expect(out?.success).toBe(true);
    const types = events.filter((e) => e.type.startsWith("mcp_tool_call")).map((e) => e.type);
    expect(types).toEqual(["mcp_tool_call_begin", "mcp_tool_call_end"]);
  });

  it("converts isError, structured content, images and bounds huge text", async () => {
    const { runtime } = await runtimeFor(manager);
    runtime.submit(call("e", "mcp__fx__fail"));
    runtime.submit(call("s", "mcp__fx__structured"));
    runtime.submit(call("i", "mcp__fx__image"));
    runtime.submit(call("b", "mcp__fx__big", { bytes: 300_000 }));
    const [fail, structured, image, big] = await runtime.drainOutcomes();
    expect(fail?.success).toBe(false);
    expect(fail?.item).toMatchObject({ output: "it broke" });
    expect(JSON.parse((structured?.item as { output: string }).output)).toEqual({ sum: 3, items: ["a", "b"] });
    expect((image?.item as { output: unknown }).output).toEqual([
      { type: "input_text", text: "a pixel" },
      { type: "input_image", image_url: `data:image/png;base64,${TINY_PNG}` },
    ]);
    const bigText = (big?.item as { output: string }).output;
    expect(bigText.startsWith("Total output lines: 100000\n\n")).toBe(true);
    expect(bigText).toMatch(/…\d+ chars truncated…/);
    expect(Buffer.byteLength(bigText)).toBeLessThan(2_200);
  });

  it("offers provider-safe names and sends the raw name to the server", async () => {
    const names = [...manager.listAllTools().keys()];
    for (const n of names) expect(n).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    const byRaw = new Map(
      [...manager.listAllTools()].filter(([, t]) => t.server === "fx").map(([q, t]) => [t.tool, q]),
    );
    for (const raw of ["dotted.name", "dotted_name", "héllo wörld", LONG_TOOL_NAME]) expect(byRaw.has(raw)).toBe(true);
    expect(new Set([byRaw.get("dotted.name"), byRaw.get("dotted_name")]).size).toBe(2);
    const { runtime } = await runtimeFor(manager);
    for (const raw of ["dotted.name", "dotted_name", "héllo wörld", LONG_TOOL_NAME])
      runtime.submit(call(raw, byRaw.get(raw) as string));
    const outs = await runtime.drain();
    expect(outs.map((o) => (o as { output: string }).output)).toEqual(
      ["dotted.name", "dotted_name", "héllo wörld", LONG_TOOL_NAME].map((r) => `called ${r}`),
    );
  });

  it("runs readOnlyHint tools in parallel (barrier met) and un-annotated tools exclusively", async () => {
    const { runtime, router } = await runtimeFor(manager);
    expect(router.toolSupportsParallel("mcp__fx__barrier")).toBe(true);
    expect(router.toolSupportsParallel("mcp__fx__probe")).toBe(false);
    for (let i = 0; i < 3; i++)
      runtime.submit(call(`b${i}`, "mcp__fx__barrier", { id: "ro", participants: 3, timeout_ms: 5_000 }));
    for (let i = 0; i < 3; i++) runtime.submit(call(`p${i}`, "mcp__fx__probe", { hold_ms: 40 }));
    const outs = await runtime.drain();
    expect(outs.slice(0, 3).map((o) => (o as { output: string }).output)).toEqual(Array(3).fill("barrier ro met"));
    for (const o of outs.slice(3))
      expect(JSON.parse((o as { output: string }).output)).toEqual({ atEntry: 1, maxActive: 1 });
  });

  it("resets the tool timeout on progress and reports progress events", async () => {
    const { runtime, events } = await runtimeFor(manager);
    // 4 steps of 150 ms = 600 ms > the 400 ms timeout, but each progress resets it.
    runtime.submit(call("p", "mcp__fast__slow", { steps: 4, step_ms: 150 }));
    const [out] = await runtime.drainOutcomes();
    expect(out?.item).toMatchObject({ output: "done after 4 steps" });
    const progress = events.filter(
      (e): e is Extract<ToolEvent, { type: "mcp_tool_call_progress" }> => e.type === "mcp_tool_call_progress",
    );
    // The fixture sends every notification before its result, so none may be lost.
    expect(progress.map((p) => [p.progress, p.total, p.message])).toEqual([1, 2, 3, 4].map((i) => [i, 4, `step ${i}`]));
  });

  it("never drops a progress notification that arrives in the same read as the result", async () => {
    // Short steps put the last notification and the result in one stdout chunk most of the time.
    for (let i = 0; i < 20; i++) {
      const seen: number[] = [];
      await manager.callTool("fx", "slow", { steps: 3, step_ms: 5 }, { onProgress: (p) => seen.push(p.progress) });
      expect(seen).toEqual([1, 2, 3]);
    }
  });

  it("answers a silent call with the timeout text", async () => {
    const { runtime } = await runtimeFor(manager);
    runtime.submit(call("t", "mcp__fast__barrier", { id: "alone", participants: 2, timeout_ms: 3_000 }));
    const [out] = await runtime.drainOutcomes();
    expect(out?.success).toBe(false);
    expect(out?.item).toMatchObject({ output: "timed out awaiting tools/call after 0.4s" });
  });

  it("reads a reply line past the SDK's 10 MB read buffer whole (no uncaught exception)", async () => {
    // The SDK's ReadBuffer dropped such a line and the call waited out its timeout.
    const big = await manager.callTool("fast", "big", { bytes: 11_000_000 }, { timeoutMs: 10_000 });
    expect((big.content[0] as { text: string }).text).toBe("ab\n".repeat(Math.ceil(11_000_000 / 3)));
    const next = await manager.callTool("fast", "echo", { text: "still here" }, { timeoutMs: 10_000 });
    expect(next.content[0]).toMatchObject({ text: "still here" });
  });

  it("hides disabled tools from listing and refuses them at call time with the DESIGN text", async () => {
    // Never listed or offered to the model...
    expect(manager.listAllTools().has("mcp__fast__fail")).toBe(false);
    const { runtime, router } = await runtimeFor(manager);
    const offered = router.specs().flatMap((s) => (s.spec.type === "function" ? [s.spec.name] : []));
    expect(offered).not.toContain("mcp__fast__fail");
    expect(manager.configuredSpecs().map((s) => (s.spec as { name: string }).name)).not.toContain("mcp__fast__fail");
    // ...but resolved, so a call reaches the manager, which refuses it.
    expect(manager.resolve("mcp__fast__fail")).toMatchObject({ server: "fast", tool: "fail" });
    await expect(manager.callTool("fast", "fail", {})).rejects.toThrow("tool 'fail' is disabled for MCP server 'fast'");
    runtime.submit(call("d", "mcp__fast__fail"));
    runtime.submit(call("n", "mcp__fast__no_such_tool"));
    expect(await runtime.drain()).toEqual([
      {
        type: "function_call_output",
        call_id: "d",
        output: "tool call error: tool 'fail' is disabled for MCP server 'fast'",
      },
      { type: "function_call_output", call_id: "n", output: "unsupported call: mcp__fast__no_such_tool" },
    ]);
  });

  it("refuses tools outside enabledTools, even with arguments their schema would reject", async () => {
    const picky = [...manager.listAllTools()].filter(([, t]) => t.server === "picky").map(([q, t]) => [q, t.tool]);
    expect(picky).toEqual([
      ["mcp__picky__echo", "echo"],
      ["mcp__picky__env", "env"],
      ["mcp__picky__dotted_name", "dotted_name"], // the disabled "dotted.name" does not push it to a hash name
    ]);
    expect(manager.resolve("mcp__picky__big")).toMatchObject({ server: "picky", tool: "big" });
    const { runtime } = await runtimeFor(manager);
    runtime.submit(call("big", "mcp__picky__big", {})); // "bytes" is required by its schema
    runtime.submit(call("dot", "mcp__picky__dotted_name"));
    runtime.submit(call("echo", "mcp__picky__echo", { text: "allowed" }));
    const outs = await runtime.drainOutcomes();
    expect(outs.map((o) => [o.success, (o.item as { output: string }).output])).toEqual([
      [false, "tool call error: tool 'big' is disabled for MCP server 'picky'"],
      [true, "called dotted_name"],
      [true, "allowed"],
    ]);
  });

  it("validates arguments against the tool's inputSchema before calling", async () => {
    const { runtime } = await runtimeFor(manager);
    runtime.submit(call("v", "mcp__fx__echo", { txt: "x" }));
    const [out] = await runtime.drain();
    expect((out as { output: string }).output).toMatch(/^invalid arguments for mcp__fx__echo: /);
  });

  it("abort sends notifications/cancelled to the server", async () => {
    const { runtime, events } = await runtimeFor(manager);
    runtime.submit(call("a", "mcp__fx__slow", { steps: 50, step_ms: 100 }));
    await eventually(() => events.some((e) => e.type === "mcp_tool_call_progress"), "first progress");
    runtime.abort();
    const [out] = await runtime.drainOutcomes();
    expect(out?.aborted).toBe(true);
    await eventually(async () => {
      const r = await manager.callTool("fx", "cancellations", {});
      return (JSON.parse((r.content[0] as { text: string }).text) as string[]).length > 0;
    }, "server saw notifications/cancelled");
  });

  it("gives the child only the safe base environment plus its configured env", async () => {
    const read = async (name: string) => (await manager.callTool("fx", "env", { name })).content[0];
    expect(await read("FIXTURE_GIVEN")).toMatchObject({ text: '"given"' });
    expect(await read(SECRET)).toMatchObject({ text: "null" });
    expect(await read("PATH")).not.toMatchObject({ text: "null" });
  });

  it("copies envVars from this process into the server's environment; env wins", async () => {
    const read = async (name: string) =>
      ((await manager.callTool("picky", "env", { name })).content[0] as { text: string }).text;
    expect(await read(PASSED)).toBe('"from parent"');
    expect(await read(UNSET)).toBe("null");
    expect(await read(OVERRIDDEN)).toBe('"from env"');
    expect(await read(SECRET)).toBe("null"); // only the named variables
  });

  it("keeps every qualified name on its tool across a list_changed that reorders colliding tools", async () => {
    const byRaw = (): Map<string, string> =>
      new Map([...manager.listAllTools()].filter(([, t]) => t.server === "fx").map(([name, t]) => [t.tool, name]));
    const before = byRaw();
    // The raw name that needs no change keeps the plain form, whatever the listing order.
    expect(before.get("dotted_name")).toBe("mcp__fx__dotted_name");
    await manager.callTool("fx", "reorder_weird", {});
    await eventually(() => byRaw().has("dotted name"), "the reordered listing");
    const after = byRaw();
    for (const [raw, name] of before) expect(after.get(raw)).toBe(name);
    expect(new Set(after.values()).size).toBe(after.size);
    const { runtime } = await runtimeFor(manager);
    const colliding = ["dotted.name", "dotted_name", "dotted name"];
    colliding.forEach((raw, i) => runtime.submit(call(`c${i}`, after.get(raw) as string)));
    expect((await runtime.drain()).map((o) => (o as { output: string }).output)).toEqual(
      colliding.map((raw) => `called ${raw}`),
    );
  });

  it("refreshes the tool map on list_changed", async () => {
    const { router } = await runtimeFor(manager);
    expect(router.specs().some((s) => s.spec.type === "function" && s.spec.name === "mcp__fx__added_later")).toBe(
      false,
    );
    await manager.callTool("fx", "trigger_list_changed", {});
    await eventually(() => manager.resolve("mcp__fx__added_later") !== undefined, "added_later listed");
    expect(router.specs().some((s) => s.spec.type === "function" && s.spec.name === "mcp__fx__added_later")).toBe(true);
  });
});

describe("a stdio server that dies", () => {
  it("fails the in-flight call at once, restarts on the next call, and close() kills the tree", async () => {
    const m = McpConnectionManager.start({ fx: fixtureServer() });
    try {
      await m.waitForStartup();
      const firstPid = m.serverPid("fx") as number;
      const grandchild = Number(((await m.callTool("fx", "spawn_child", {})).content[0] as { text: string }).text);
      // An in-flight call (direct API) and a call through the runtime both see the death.
      const inFlight = m.callTool("fx", "slow", { steps: 100, step_ms: 100 });
      inFlight.catch(() => undefined);
      const { runtime } = await runtimeFor(m);
      runtime.submit(call("crash", "mcp__fx__crash"));
      const [crash] = await runtime.drainOutcomes();
      expect(crash?.success).toBe(false);
      const died = /^MCP server 'fx' exited during tools\/call \(process exited with code 3/;
      expect((crash?.item as { output: string }).output).toMatch(
        new RegExp(`^tool call error: ${died.source.slice(1)}`),
      );
      await expect(inFlight).rejects.toThrow(died);
      await eventually(() => !isAlive(firstPid) && !isAlive(grandchild), "old process group gone");
      const r = await m.callTool("fx", "echo", { text: "back" });
      expect(r.content[0]).toMatchObject({ text: "back" });
      const secondPid = m.serverPid("fx") as number;
      expect(secondPid).not.toBe(firstPid);
      const child = Number(((await m.callTool("fx", "spawn_child", {})).content[0] as { text: string }).text);
      expect(isAlive(secondPid) && isAlive(child)).toBe(true);
      await m.close();
      expect(isAlive(secondPid)).toBe(false);
      await eventually(() => !isAlive(child), "grandchild killed by close()");
    } finally {
      await m.close();
    }
  });

  it("gives up after the bounded restarts fail", async () => {
    const dir = await mkdtemp(join(tmpdir(), "mcp-once-"));
    // Starts the fixture once; every later start fails at once with a message on stderr.
    const once = `test -e "$MARKER" && { echo refusing to start again >&2; exit 1; }; touch "$MARKER"; exec "$0" --import tsx "$1" stdio`;
    const m = McpConnectionManager.start(
      {
        fx: {
          command: "/bin/sh",
          args: ["-c", once, process.execPath, FIXTURE],
          env: { MARKER: join(dir, "started") },
        },
      },
      { restartBackoffMs: [0] },
    );
    try {
      await m.waitForStartup();
      await expect(m.callTool("fx", "crash", {})).rejects.toThrow(
        /exited during tools\/call \(process exited with code 3/,
      );
      for (let i = 0; i < MAX_RESTART_ATTEMPTS; i++) {
        await expect(m.callTool("fx", "echo", { text: "x" })).rejects.toThrow(
          /^MCP server 'fx' died and could not be restarted: .*process exited with code 1; stderr: refusing to start again\)$/,
        );
      }
      await expect(m.callTool("fx", "echo", { text: "x" })).rejects.toThrow(
        `MCP server 'fx' is not running and ${MAX_RESTART_ATTEMPTS} restarts failed`,
      );
      expect(m.serverPid("fx")).toBeUndefined();
    } finally {
      await m.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("close() ends a restart's backoff wait at once and starts nothing", async () => {
    const m = McpConnectionManager.start({ fx: fixtureServer() }, { restartBackoffMs: [600_000] });
    try {
      await m.waitForStartup();
      await expect(m.callTool("fx", "crash", {})).rejects.toThrow(/exited during tools\/call/);
      const waiting = m.callTool("fx", "echo", { text: "x" });
      waiting.catch(() => undefined);
      await m.close(); // would wait out the 600 s backoff, then start a server, without the fix
      await expect(waiting).rejects.toThrow("MCP server 'fx' is closed");
      expect(m.serverPid("fx")).toBeUndefined();
    } finally {
      await m.close();
    }
  });
});
