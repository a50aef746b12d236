import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpConnectionManager } from "../../src/index.js";
import { startHttpFixture, type HttpFixture } from "../fixtures/mcp-server.js";

let fx: HttpFixture;
let m: McpConnectionManager;
beforeAll(async () => {
  fx = await startHttpFixture();
  m = McpConnectionManager.start({ fx: { url: fx.url, disabledTools: ["fail"] } });
  await m.waitForStartup();
});
afterAll(async () => {
  await m.close();
  await fx.close();
});

async function eventually(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("McpConnectionManager.resolve", () => {
  it("returns the listing's own frozen record: the same object on every call, no copy", () => {
    const info = m.listAllTools().get("mcp__fx__barrier");
    const ref = m.resolve("mcp__fx__barrier");
    expect(ref).toBe(info);
    expect(m.resolve("mcp__fx__barrier")).toBe(ref);
    expect(Object.isFrozen(ref)).toBe(true);
    expect(ref).toMatchObject({
      server: "fx",
      tool: "barrier",
      supportsParallel: true,
      annotations: { readOnlyHint: true },
    });
    expect(info?.spec.name).toBe("mcp__fx__barrier");
  });

  it("resolves a filtered tool without listing it, so its call is refused with the DESIGN text", async () => {
    expect(m.listAllTools().has("mcp__fx__fail")).toBe(false);
    expect(m.resolve("mcp__fx__fail")).toEqual({ server: "fx", tool: "fail", supportsParallel: true });
    await expect(m.callTool("fx", "fail", {})).rejects.toThrow("tool 'fail' is disabled for MCP server 'fx'");
    expect(m.resolve("mcp__fx__nope")).toBeUndefined();
  });

  it("builds new records on a re-listing, keeping an unchanged schema object", async () => {
    const before = m.resolve("mcp__fx__echo");
    await m.callTool("fx", "trigger_list_changed", {});
    await eventually(() => m.resolve("mcp__fx__added_later") !== undefined, "added_later listed");
    const after = m.resolve("mcp__fx__echo");
    expect(after).not.toBe(before);
    expect(after).toEqual(before);
    expect(after?.inputSchema).toBe(before?.inputSchema);
  });
});
