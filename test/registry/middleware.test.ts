import { describe, expect, it } from "vitest";
import {
  createTurnContext,
  ToolCallRuntime,
  ToolRegistryBuilder,
  ToolRouter,
  type ToolHandler,
  type ToolMiddleware,
} from "../../src/index.js";
import { fc, text } from "../support/harness.js";

const schema = {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
  additionalProperties: false,
};

function setup(use: (b: ToolRegistryBuilder) => ToolRegistryBuilder, started: string[]) {
  const handler: ToolHandler = {
    kind: "function",
    handle: async (inv) => {
      started.push(JSON.stringify(inv.args));
      return { kind: "function", body: `sunny in ${(inv.args as { city: string }).city}` };
    },
  };
  const b = new ToolRegistryBuilder()
    .pushSpec({ type: "function", name: "weather", description: "w", parameters: schema }, { parallel: true })
    .registerHandler("weather", handler)
    .pushSpec({ type: "function", name: "other", description: "o", parameters: schema })
    .registerHandler("other", handler);
  const { specs, registry } = use(b).build();
  return new ToolCallRuntime(new ToolRouter(registry, specs), createTurnContext());
}

describe("middleware (DESIGN section 11)", () => {
  it("wraps the handler onion-style: the first use is the outermost", async () => {
    const order: string[] = [];
    const tag =
      (name: string): ToolMiddleware =>
      async (_inv, next) => {
        order.push(`${name} in`);
        const out = await next();
        order.push(`${name} out`);
        return out;
      };
    const started: string[] = [];
    const runtime = setup((b) => b.use(tag("outer")).use(tag("inner")), started);
    runtime.submit(fc("c1", "weather", '{"city":"Oslo"}'));
    expect((await runtime.drain()).map(text)).toEqual(["sunny in Oslo"]);
    expect(order).toEqual(["outer in", "inner in", "inner out", "outer out"]);
  });

  it("may answer without calling next (the handler never starts) or transform the output", async () => {
    const started: string[] = [];
    const runtime = setup(
      (b) =>
        b
          .use(async (inv, next) =>
            (inv.args as { city: string }).city === "Atlantis"
              ? { kind: "function", body: "no such city", success: false }
              : next(),
          )
          .use(async (_inv, next) => {
            const out = await next();
            return out.kind === "function" && typeof out.body === "string"
              ? { ...out, body: out.body.replace("sunny", "[redacted]") }
              : out;
          }),
      started,
    );
    runtime.submit(fc("a", "weather", '{"city":"Atlantis"}'));
    runtime.submit(fc("b", "weather", '{"city":"Rome"}'));
    const outcomes = await runtime.drainOutcomes();
    expect(outcomes.map((o) => [text(o.item), o.success])).toEqual([
      ["no such city", false],
      ["[redacted] in Rome", true],
    ]);
    expect(started).toEqual(['{"city":"Rome"}']);
  });

  it("next(args) validates the new arguments: inner layers see them; a violation answers and the handler never starts", async () => {
    const started: string[] = [];
    const seenInside: unknown[] = [];
    const runtime = setup(
      (b) =>
        b
          .use(async (inv, next) => next({ city: (inv.args as { city: string }).city.toUpperCase() }))
          .use(async (inv, next) => {
            seenInside.push(inv.args);
            return next();
          }),
      started,
    );
    runtime.submit(fc("ok", "weather", '{"city":"Oslo"}'));
    expect((await runtime.drain()).map(text)).toEqual(["sunny in OSLO"]);
    expect(seenInside).toEqual([{ city: "OSLO" }]);

    const bad = setup((b) => b.use(async (_inv, next) => next({ town: "Oslo" })), started);
    bad.submit(fc("bad", "weather", '{"city":"Oslo"}'));
    expect((await bad.drain()).map(text)).toEqual([
      "invalid arguments for weather: / must have required property 'city'; /town is not an allowed property",
    ]);
    expect(started).toEqual(['{"city":"OSLO"}']);
  });

  it("applies only to the named tools when given `tools`", async () => {
    const started: string[] = [];
    const runtime = setup(
      (b) => b.use(async () => ({ kind: "function", body: "intercepted" }), { tools: ["other"] }),
      started,
    );
    runtime.submit(fc("w", "weather", '{"city":"Oslo"}'));
    runtime.submit(fc("o", "other", '{"city":"Oslo"}'));
    expect((await runtime.drain()).map(text)).toEqual(["sunny in Oslo", "intercepted"]);
  });
});
