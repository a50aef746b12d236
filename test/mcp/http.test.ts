import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpConnectionManager } from "../../src/index.js";
import { startHttpFixture, type HttpFixture } from "../fixtures/mcp-server.js";
import { call, runtimeFor } from "./helpers.js";

let fx: HttpFixture;
const TOKEN_VAR = `TOOLCALL_MCP_TOKEN_${process.pid}`;
beforeAll(async () => {
  fx = await startHttpFixture({ bearerToken: "s3cret" });
  process.env[TOKEN_VAR] = "s3cret";
});
afterAll(async () => {
  delete process.env[TOKEN_VAR];
  await fx.close();
});

describe("MCP over HTTP", () => {
  it("uses Streamable HTTP with a bearer token, and falls back to SSE for a legacy endpoint", async () => {
    const m = McpConnectionManager.start({
      modern: { url: fx.url, bearerTokenEnvVar: TOKEN_VAR, httpHeaders: { "X-Test": "1" } },
      legacy: { url: fx.sseUrl, bearerTokenEnvVar: TOKEN_VAR },
    });
    try {
      expect(await m.waitForStartup()).toEqual({ ready: ["modern", "legacy"], failed: [] });
      const { runtime } = await runtimeFor(m);
      runtime.submit(call("a", "mcp__modern__echo", { text: "streamable" }));
      runtime.submit(call("b", "mcp__legacy__echo", { text: "sse" }));
      runtime.submit(call("c", "mcp__modern__structured"));
      expect((await runtime.drain()).map((o) => (o as { output: unknown }).output)).toEqual([
        "streamable",
        "sse",
        JSON.stringify({ sum: 3, items: ["a", "b"] }),
      ]);
    } finally {
      await m.close();
    }
  });

  it("reports a missing token variable and a refused token as start-up failures", async () => {
    const m = McpConnectionManager.start({
      unset: { url: fx.url, bearerTokenEnvVar: "TOOLCALL_NO_SUCH_VAR" },
      anon: { url: fx.url, startupTimeoutSec: 5 },
    });
    try {
      const { failed } = await m.waitForStartup();
      expect(failed.find((f) => f.server === "unset")?.error).toBe(
        "environment variable TOOLCALL_NO_SUCH_VAR (bearer_token_env_var) is not set",
      );
      expect(failed.find((f) => f.server === "anon")?.error).toMatch(/401|unauthorized/i);
    } finally {
      await m.close();
    }
  });

  it("sends env_http_headers from the environment, and none for an unset variable", async () => {
    const HEADER_VAR = `TOOLCALL_MCP_AUTH_HEADER_${process.pid}`;
    process.env[HEADER_VAR] = "Bearer s3cret";
    const m = McpConnectionManager.start({
      // The fixture checks Authorization; a static header of another case must lose to it.
      viaEnv: {
        url: fx.url,
        httpHeaders: { authorization: "Bearer wrong" },
        envHttpHeaders: { Authorization: HEADER_VAR },
      },
      unset: { url: fx.url, envHttpHeaders: { Authorization: "TOOLCALL_NO_SUCH_VAR" }, startupTimeoutSec: 5 },
    });
    try {
      const { ready, failed } = await m.waitForStartup();
      expect(ready).toEqual(["viaEnv"]);
      expect(failed.find((f) => f.server === "unset")?.error).toMatch(/401|unauthorized/i);
      const r = await m.callTool("viaEnv", "echo", { text: "with env header" });
      expect(r.content[0]).toMatchObject({ text: "with env header" });
    } finally {
      delete process.env[HEADER_VAR];
      await m.close();
    }
  });

  it("abort reaches an HTTP server as notifications/cancelled", async () => {
    const m = McpConnectionManager.start({ modern: { url: fx.url, bearerTokenEnvVar: TOKEN_VAR } });
    try {
      await m.waitForStartup();
      const controller = new AbortController();
      const pending = m.callTool(
        "modern",
        "slow",
        { steps: 50, step_ms: 50 },
        {
          signal: controller.signal,
          onProgress: () => {
            controller.abort();
          },
        },
      );
      // Not the timeout text: the SDK rejects an aborted request with a RequestTimeout code.
      await expect(pending).rejects.toMatchObject({
        name: "McpCallError",
        message: "tools/call aborted",
        timedOut: false,
      });
      for (let i = 0; i < 100 && fx.state.cancelled.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(fx.state.cancelled.length).toBeGreaterThan(0);
    } finally {
      await m.close();
    }
  });
});
