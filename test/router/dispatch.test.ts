import { describe, expect, it } from "vitest";
import { pino } from "pino";
import { Writable } from "node:stream";
import {
  createTurnContext,
  FunctionCallError,
  ToolRegistryBuilder,
  ToolCallFailure,
  ToolRouter,
  type ToolHandler,
  type ToolOutput,
} from "../../src/index.js";
import { fc } from "../support/harness.js";

function routerWith(handler: ToolHandler, parameters: Record<string, unknown> = { type: "object" }, parallel = true) {
  const { specs, registry } = new ToolRegistryBuilder()
    .pushSpecWithParallelSupport({ type: "function", name: "t", description: "d", parameters }, parallel)
    .registerHandler("t", handler)
    .build();
  return new ToolRouter(registry, specs);
}

const opts = () => ({ turn: createTurnContext(), signal: new AbortController().signal });
const returning = (output: ToolOutput): ToolHandler => ({ kind: "function", handle: async () => output });

describe("ToolRouter.dispatch error texts", () => {
  it("answers an unknown tool with unsupported call", async () => {
    const router = routerWith(returning({ kind: "function", body: "x" }));
    const r = await router.dispatch(router.buildToolCall(fc("1", "missing"))!, opts());
    expect(r).toMatchObject({
      success: false,
      item: { type: "function_call_output", call_id: "1", output: "unsupported call: missing" },
    });
  });

  it("passes a respondToModel message through verbatim", async () => {
    const router = routerWith({
      kind: "function",
      handle: async () => {
        throw FunctionCallError.respondToModel("file not found: /x");
      },
    });
    const r = await router.dispatch(router.buildToolCall(fc("1", "t"))!, opts());
    expect(r.item).toMatchObject({ output: "file not found: /x" });
    expect(r.success).toBe(false);
  });

  it("wraps any other throw as `tool {name} failed: {message}` and logs the stack, not the model", async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: "error" },
      new Writable({
        write: (c, _e, cb) => {
          lines.push(String(c));
          cb();
        },
      }),
    );
    const router = routerWith({
      kind: "function",
      handle: async () => {
        throw new TypeError("cannot read x of undefined");
      },
    });
    const r = await router.dispatch(router.buildToolCall(fc("1", "t"))!, {
      ...opts(),
      turn: createTurnContext({ logger }),
    });
    expect(r.item).toMatchObject({ output: "tool t failed: cannot read x of undefined" });
    expect(lines.join("")).toContain("TypeError");
    expect(lines.join("")).toContain("stack");
  });

  it("treats an empty argument string as {}", async () => {
    const router = routerWith(
      { kind: "function", handle: async (inv) => ({ kind: "function", body: JSON.stringify(inv.args) }) },
      {
        type: "object",
        properties: { a: { type: "number" } },
        additionalProperties: false,
      },
    );
    const r = await router.dispatch(router.buildToolCall(fc("1", "t", ""))!, opts());
    expect(r.item).toMatchObject({ output: "{}" });
  });

  it("reports JSON errors with the parser message", async () => {
    const router = routerWith(returning({ kind: "function", body: "x" }));
    const r = await router.dispatch(router.buildToolCall(fc("1", "t", "{nope"))!, opts());
    expect((r.item as { output: string }).output).toMatch(/^failed to parse function arguments: .*JSON/);
  });

  it("names the path and rule of schema violations, root as /, never the value", async () => {
    const router = routerWith(returning({ kind: "function", body: "x" }), {
      type: "object",
      properties: {
        path: { type: "string", minLength: 2 },
        mode: { enum: ["a", "b"] },
        nested: { type: "object", properties: { n: { type: "integer" } } },
      },
      required: ["path"],
      additionalProperties: false,
    });
    const call = router.buildToolCall(
      fc("1", "t", JSON.stringify({ mode: "SECRET-VALUE", nested: { n: 1.5 }, extra: "SECRET-2" })),
    )!;
    const out = (await router.dispatch(call, opts())).item as { output: string };
    expect(out.output).toBe(
      "invalid arguments for t: / must have required property 'path'; /extra is not an allowed property; " +
        "/mode must be equal to one of the allowed values; /nested/n must be integer",
    );
    expect(out.output).not.toContain("SECRET");
  });

  it("tolerates real-world schemas with unknown keywords and formats", async () => {
    const router = routerWith(returning({ kind: "function", body: "ok" }), {
      type: "object",
      "x-vendor": { deep: true },
      properties: { when: { type: "string", format: "my-custom-date" }, url: { type: "string", format: "uri" } },
    });
    const ok = await router.dispatch(
      router.buildToolCall(fc("1", "t", '{"when":"whenever","url":"https://x.test/"}'))!,
      opts(),
    );
    expect(ok.item).toMatchObject({ output: "ok" });
    const bad = await router.dispatch(router.buildToolCall(fc("2", "t", '{"url":"not a uri"}'))!, opts());
    expect(bad.item).toMatchObject({ output: 'invalid arguments for t: /url must match format "uri"' });
  });

  it("skips validation for a schema that cannot compile, and logs it once", async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: "warn" },
      new Writable({
        write: (c, _e, cb) => {
          lines.push(String(c));
          cb();
        },
      }),
    );
    const { specs, registry } = new ToolRegistryBuilder({ logger })
      .pushSpec({
        type: "function",
        name: "t",
        description: "d",
        parameters: { type: "object", properties: { a: { $ref: "#/nowhere" } } },
      })
      .registerHandler("t", returning({ kind: "function", body: "handler ran" }))
      .build();
    const router = new ToolRouter(registry, specs);
    const r = await router.dispatch(router.buildToolCall(fc("1", "t", '{"a":1}'))!, opts());
    expect(r.item).toMatchObject({ output: "handler ran" });
    expect(lines.filter((l) => l.includes("does not compile"))).toHaveLength(1);
  });

  it("answers custom payloads with custom_tool_call_output, content items flattened", async () => {
    const handler: ToolHandler = {
      kind: "function",
      matchesKind: (p) => p.kind === "custom",
      handle: async (inv) => ({
        kind: "function",
        body: [
          { type: "input_text", text: `got ${String(inv.args)}` },
          { type: "input_image", image_url: "data:image/png;base64,AAAA" },
          { type: "input_text", text: "end" },
        ],
      }),
    };
    const router = routerWith(handler);
    const call = router.buildToolCall({ type: "custom_tool_call", call_id: "c", name: "t", input: "raw text" })!;
    expect((await router.dispatch(call, opts())).item).toEqual({
      type: "custom_tool_call_output",
      call_id: "c",
      output: "got raw text\nend",
    });
  });

  it("reports success from the handler output", async () => {
    const router = routerWith(returning({ kind: "function", body: "exit 1", success: false }));
    expect((await router.dispatch(router.buildToolCall(fc("1", "t"))!, opts())).success).toBe(false);
    expect(await router.dispatchToolCall(router.buildToolCall(fc("1", "t"))!, opts())).toEqual({
      type: "function_call_output",
      call_id: "1",
      output: "exit 1",
    });
  });

  it("truncates outputs unless the handler already bounded them", async () => {
    const big = "x".repeat(50);
    const turn = createTurnContext({ truncationPolicy: { mode: "bytes", limit: 10 } });
    const plain = routerWith(returning({ kind: "function", body: big }));
    const bounded = routerWith(returning({ kind: "function", body: big, bounded: true }));
    const call = plain.buildToolCall(fc("1", "t"))!;
    const signal = new AbortController().signal;
    expect((await plain.dispatch(call, { turn, signal })).item).toMatchObject({
      output: "Total output lines: 1\n\nxxxxx…40 chars truncated…xxxxx",
    });
    expect((await bounded.dispatch(call, { turn, signal })).item).toMatchObject({ output: big });
  });

  it("converts MCP results: structuredContent, text, images, other blocks, isError", async () => {
    const router = routerWith({ kind: "function", handle: async () => ({ kind: "mcp", result: { content: [] } }) });
    const { mcpResultBody } = await import("../../src/protocol/index.js");
    expect(mcpResultBody({ content: [{ type: "text", text: "a" }], structuredContent: { n: 1 } })).toEqual({
      body: '{"n":1}',
      success: true,
    });
    // Images beside structuredContent reach the model as images, not as JSON text.
    expect(
      mcpResultBody({
        content: [{ type: "image", data: "AAAA", mimeType: "image/png" }],
        structuredContent: { n: 1 },
      }).body,
    ).toEqual([
      { type: "input_text", text: '{"n":1}' },
      { type: "input_image", image_url: "data:image/png;base64,AAAA" },
    ]);
    expect(
      mcpResultBody({
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
        isError: true,
      }),
    ).toEqual({
      body: "a\nb",
      success: false,
    });
    expect(
      mcpResultBody({
        content: [
          { type: "text", text: "pic:" },
          { type: "image", data: "AAAA", mimeType: "image/png" },
          { type: "resource_link", uri: "file:///x", name: "x" },
        ],
      }).body,
    ).toEqual([
      { type: "input_text", text: "pic:" },
      { type: "input_image", image_url: "data:image/png;base64,AAAA" },
      { type: "input_text", text: "[resource link: x file:///x]" },
    ]);
    expect((await router.dispatch(router.buildToolCall(fc("1", "t"))!, opts())).item).toMatchObject({ output: "" });
  });
});

describe("ToolRouter parallel flags", () => {
  it("uses the spec flag, unknown names are exclusive, handlers may only downgrade", () => {
    const handler: ToolHandler = {
      kind: "function",
      supportsParallel: (call) => call.payload.kind === "function" && !call.payload.arguments.includes("write"),
      handle: async () => ({ kind: "function", body: "" }),
    };
    const par = routerWith(handler, { type: "object" }, true);
    expect(par.toolSupportsParallel("t")).toBe(true);
    expect(par.toolSupportsParallel("unknown")).toBe(false);
    expect(par.callSupportsParallel(par.buildToolCall(fc("1", "t", '{"m":"read"}'))!)).toBe(true);
    expect(par.callSupportsParallel(par.buildToolCall(fc("1", "t", '{"m":"write"}'))!)).toBe(false);
    const excl = routerWith({ ...handler, supportsParallel: () => true }, { type: "object" }, false);
    expect(excl.callSupportsParallel(excl.buildToolCall(fc("1", "t"))!)).toBe(false);
  });
});

describe("ToolRouter.prepare", () => {
  it("resolves an item once into its call, tool, lock mode, deadline and abort text; runs nothing", async () => {
    let ran = 0;
    const handler: ToolHandler = {
      kind: "function",
      supportsParallel: (call) => call.payload.kind === "function" && !call.payload.arguments.includes("write"),
      abortedOutput: (inv, elapsedMs) => `stopped ${inv === undefined ? "before" : "after"} start at ${elapsedMs}`,
      handle: async () => {
        ran++;
        return { kind: "function", body: "ran" };
      },
    };
    const { specs, registry } = new ToolRegistryBuilder()
      .pushSpec(
        { type: "function", name: "t", description: "d", parameters: { type: "object" } },
        { parallel: true, timeoutMs: 250 },
      )
      .registerHandler("t", handler)
      .build();
    const router = new ToolRouter(registry, specs);
    const prepared = (item: Parameters<typeof router.prepare>[0]) => {
      const p = router.prepare(item);
      if (p === null || p instanceof ToolCallFailure) throw new Error("not prepared");
      return p;
    };
    const read = prepared(fc("1", "t", '{"m":"read"}'));
    const write = prepared(fc("2", "t", '{"m":"write"}'));
    expect(read.call).toMatchObject({ callId: "1", toolName: "t" });
    expect(read.tool?.handler).toBe(handler);
    // The spec flag, then the handler's per-call say.
    expect([read.exclusive, write.exclusive]).toEqual([false, true]);
    expect(read.timeoutMs).toBe(250);
    expect(read.abortedText(1500)).toBe("stopped before start at 1500");
    expect(ran).toBe(0);
    expect(router.prepare({ type: "message", role: "assistant", content: [] })).toBeNull();
    expect(router.prepare({ type: "function_call", name: "t", arguments: "{}" })).toBeInstanceOf(ToolCallFailure);
    expect(prepared(fc("3", "missing")).tool).toBeUndefined();
  });
});

describe("ToolRouter with an MCP tool source", () => {
  it("a registered tool wins over an MCP tool listed under the same name, and is offered once", async () => {
    const mcpHandler: ToolHandler = {
      kind: "mcp",
      handle: async () => ({ kind: "mcp", result: { content: [{ type: "text", text: "from mcp" }] } }),
    };
    const mcp = {
      handler: mcpHandler,
      resolve: (name: string) =>
        name === "dup" || name === "mcp__s__only" ? { server: "s", tool: name, supportsParallel: true } : undefined,
      configuredSpecs: () => [
        {
          spec: { type: "function" as const, name: "dup", description: "mcp", parameters: { type: "object" } },
          supportsParallelToolCalls: true,
        },
        {
          spec: { type: "function" as const, name: "mcp__s__only", description: "mcp", parameters: { type: "object" } },
          supportsParallelToolCalls: true,
        },
      ],
    };
    const { specs, registry } = new ToolRegistryBuilder()
      .pushSpec({ type: "function", name: "dup", description: "registered", parameters: { type: "object" } })
      .registerHandler("dup", returning({ kind: "function", body: "registered" }))
      .build();
    const router = new ToolRouter(registry, specs, mcp);
    expect(
      router.specs().map((c) => (c.spec.type === "function" ? `${c.spec.name}:${c.spec.description}` : "")),
    ).toEqual(["dup:registered", "mcp__s__only:mcp"]);
    const dup = router.buildToolCall(fc("1", "dup"))!;
    expect(dup.payload.kind).toBe("function");
    expect((await router.dispatch(dup, opts())).item).toMatchObject({ output: "registered" });
    const only = router.buildToolCall(fc("2", "mcp__s__only"))!;
    expect(only.payload).toMatchObject({ kind: "mcp", server: "s" });
    expect((await router.dispatch(only, opts())).item).toMatchObject({ output: "from mcp" });
  });
});
