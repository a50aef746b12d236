import { describe, expect, it } from "vitest";
import { ToolRegistryBuilder, type ToolHandler } from "../../src/index.js";

const h: ToolHandler = { kind: "function", handle: async () => ({ kind: "function", body: "" }) };
const spec = (name: string) => ({ type: "function" as const, name, description: "d", parameters: { type: "object" } });

describe("ToolRegistryBuilder", () => {
  it("throws at build on a duplicate spec, naming the tool", () => {
    const b = new ToolRegistryBuilder().pushSpec(spec("read")).pushSpec(spec("read")).registerHandler("read", h);
    expect(() => b.build()).toThrow("duplicate tool spec: read");
  });

  it("throws at build on a duplicate handler, naming the tool", () => {
    const b = new ToolRegistryBuilder().pushSpec(spec("read")).registerHandler("read", h).registerHandler("read", h);
    expect(() => b.build()).toThrow("duplicate tool handler: read");
  });

  it("pushSpec means exclusive, pushSpecWithParallelSupport sets the flag; aliases share it", () => {
    const { specs, registry } = new ToolRegistryBuilder()
      .pushSpec(spec("a"))
      .pushSpecWithParallelSupport(spec("b"), true)
      .registerHandler("a", h)
      .registerHandler("b", h)
      .registerAlias("b2", "b")
      .build();
    expect(specs.map((s) => [s.spec.type === "function" && s.spec.name, s.supportsParallelToolCalls])).toEqual([
      ["a", false],
      ["b", true],
    ]);
    expect(registry.lookup("a")?.supportsParallel).toBe(false);
    expect(registry.lookup("b2")?.supportsParallel).toBe(true);
    expect(registry.lookup("b2")?.handler).toBe(h);
    expect(() => new ToolRegistryBuilder().registerAlias("x", "missing").build()).toThrow(/unregistered tool: missing/);
  });
});
