/**
 * serve-mcp's default concurrency (#14 item 4): a client's fan-out of read-only calls runs at
 * once well past the runtime's default of 16, and custom tools are still found by name.
 */
import { describe, expect, it } from "vitest";
import { createTurnContext, ToolRegistryBuilder, ToolRouter, type ToolHandler } from "../../src/index.js";
import { McpToolService } from "../../src/subpaths/server.js";
import { DEFAULT_SERVE_CONCURRENCY } from "../../src/server/index.js";

const FAN_OUT = 100;

describe("McpToolService concurrency", () => {
  it(`runs ${FAN_OUT} parallel read-only calls at once by default`, async () => {
    let running = 0;
    let peak = 0;
    let release!: () => void;
    const allIn = new Promise<void>((resolve) => (release = resolve));
    const handler: ToolHandler = {
      kind: "function",
      handle: async () => {
        running++;
        peak = Math.max(peak, running);
        if (running === FAN_OUT) release();
        await allIn; // every call stays until all of them have started
        running--;
        return { kind: "function", body: "ok" };
      },
    };
    const { specs, registry } = new ToolRegistryBuilder()
      .pushSpecWithParallelSupport(
        { type: "function", name: "look", description: "Reads.", parameters: { type: "object", properties: {} } },
        true,
      )
      .registerHandler("look", handler)
      .build();
    const service = new McpToolService({ router: new ToolRouter(registry, specs), turn: createTurnContext() });
    const results = await Promise.all(
      Array.from({ length: FAN_OUT }, () => service.callTool("look", {}, new AbortController().signal)),
    );
    expect(results.every((r) => r.isError !== true)).toBe(true);
    expect(peak).toBe(FAN_OUT);
    expect(DEFAULT_SERVE_CONCURRENCY).toBeGreaterThanOrEqual(FAN_OUT);
  });

  it("passes a custom tool's input as its raw string (looked up by name, not by listing)", async () => {
    const seen: unknown[] = [];
    const { specs, registry } = new ToolRegistryBuilder()
      .pushSpecWithParallelSupport({ type: "custom", name: "patch", description: "Takes text." }, false)
      .registerHandler("patch", {
        kind: "function",
        matchesKind: (p) => p.kind === "custom",
        handle: (inv) => {
          seen.push(inv.args);
          return Promise.resolve({ kind: "function", body: "done" });
        },
      })
      .build();
    const service = new McpToolService({ router: new ToolRouter(registry, specs), turn: createTurnContext() });
    const result = await service.callTool("patch", { input: "raw text" }, new AbortController().signal);
    expect(result.isError).not.toBe(true);
    expect(seen).toEqual(["raw text"]);
  });
});
