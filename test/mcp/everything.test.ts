import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpConnectionManager, type ToolEvent } from "../../src/index.js";
import { call, EVERYTHING, eventually, runtimeFor } from "./helpers.js";

let m: McpConnectionManager;
beforeAll(async () => {
  m = McpConnectionManager.start({ everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } });
  await m.waitForStartup();
});
afterAll(() => m.close());

describe("@modelcontextprotocol/server-everything over stdio", () => {
  it("lists its tools and answers echo, get-sum, get-tiny-image, get-structured-content via the runtime", async () => {
    const names = [...m.listAllTools().keys()];
    expect(names).toEqual(
      expect.arrayContaining(["mcp__everything__echo", "mcp__everything__get-sum", "mcp__everything__get-tiny-image"]),
    );
    const { runtime } = await runtimeFor(m);
    runtime.submit(call("e", "mcp__everything__echo", { message: "hi" }));
    runtime.submit(call("s", "mcp__everything__get-sum", { a: 2, b: 3 }));
    runtime.submit(call("i", "mcp__everything__get-tiny-image"));
    runtime.submit(call("c", "mcp__everything__get-structured-content", { location: "New York" }));
    const [echo, sum, image, structured] = (await runtime.drain()) as Array<{ output: unknown }>;
    expect(echo?.output).toBe("Echo: hi");
    expect(String(sum?.output)).toContain("5");
    expect(image?.output).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: "input_image", image_url: expect.stringMatching(/^data:image\/png;base64,/) }),
      ]),
    );
    expect(JSON.parse(String(structured?.output))).toHaveProperty("temperature");
  });

  it("streams progress of a long-running operation and cancels it on abort", async () => {
    const { runtime, events } = await runtimeFor(m);
    runtime.submit(call("long", "mcp__everything__trigger-long-running-operation", { duration: 30, steps: 100 }));
    await eventually(() => events.some((e) => e.type === "mcp_tool_call_progress"), "progress from server-everything");
    runtime.abort();
    const [out] = await runtime.drainOutcomes();
    expect(out?.aborted).toBe(true);
    const p = events.find(
      (e): e is Extract<ToolEvent, { type: "mcp_tool_call_progress" }> => e.type === "mcp_tool_call_progress",
    );
    expect(p).toMatchObject({
      callId: "long",
      server: "everything",
      tool: "trigger-long-running-operation",
      progress: 1,
      total: 100,
    });
    // The server is still healthy after the cancellation.
    expect((await m.callTool("everything", "echo", { message: "after" })).content[0]).toMatchObject({
      text: "Echo: after",
    });
  });
});
