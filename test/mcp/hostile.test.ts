import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpConnectionManager } from "../../src/index.js";
import { call, runtimeFor } from "./helpers.js";

const HOSTILE = fileURLToPath(new URL("../fixtures/hostile-mcp-server.ts", import.meta.url));
const server = (extra = {}) => ({ command: process.execPath, args: ["--import", "tsx", HOSTILE], ...extra });

let m: McpConnectionManager;
beforeAll(async () => {
  // The default call timeout (120 s) is far past the test's: a reply that waited it out fails the test.
  m = McpConnectionManager.start({ hostile: server(), capped: server({ maxReplyBytes: 1024 * 1024 }) });
  await m.waitForStartup();
});
afterAll(() => m.close());

describe("a hostile stdio server", () => {
  it("a 30 MB reply finishes (linear read) and is truncated for the model", async () => {
    const result = await m.callTool("hostile", "big", {});
    expect((result.content[0] as { text: string }).text).toHaveLength(30 * 1024 * 1024);
    const { runtime } = await runtimeFor(m);
    runtime.submit(call("b", "mcp__hostile__big"));
    const [out] = (await runtime.drain()) as Array<{ output: string }>;
    expect(out?.output.length).toBeLessThan(10_000);
  });

  it("a reply over max_reply_bytes fails its call at once, and the server keeps serving", async () => {
    await expect(m.callTool("capped", "big", {})).rejects.toThrow(`reply exceeded ${1024 * 1024} bytes`);
    const { runtime } = await runtimeFor(m);
    runtime.submit(call("b", "mcp__capped__big"));
    runtime.submit(call("o", "mcp__capped__ok"));
    const [big, ok] = (await runtime.drain()) as Array<{ output: string }>;
    expect(big?.output).toBe(`tool call error: reply exceeded ${1024 * 1024} bytes`);
    expect(ok?.output).toBe("ok");
  });

  it("a cut-off JSON line and result: null fail their calls at once; a log line on stdout is skipped", async () => {
    const { runtime } = await runtimeFor(m);
    runtime.submit(call("g", "mcp__hostile__garbage"));
    runtime.submit(call("n", "mcp__hostile__null_result"));
    runtime.submit(call("l", "mcp__hostile__noisy"));
    const [garbage, nul, noisy] = (await runtime.drain()) as Array<{ output: string }>;
    expect(garbage?.output).toMatch(/^tool call error: malformed reply \(not JSON: /);
    expect(nul?.output).toBe("tool call error: malformed reply (not a JSON-RPC message: result is null)");
    expect(noisy?.output).toBe("fine");
    expect((await m.callTool("hostile", "ok", {})).content).toEqual([{ type: "text", text: "ok" }]);
  });
});
