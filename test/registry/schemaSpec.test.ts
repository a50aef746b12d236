import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { z as z3 } from "zod/v3";
import {
  ToolCallRuntime,
  ToolRegistryBuilder,
  createToolRouter,
  createTurnContext,
  schemaHandler,
  toResponsesTools,
  type StandardSchema,
  type ToolFactory,
  type ToolSpecInput,
} from "../../src/index.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "toolcall-schema-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const greetArgs = z.object({
  name: z.string().min(1).describe("who to greet"),
  times: z.number().int().default(1),
  shout: z
    .string()
    .optional()
    .refine((v) => v === undefined || v === v.toUpperCase(), "must be upper case"),
});

/** A plugin factory as an embedder writes it: zod parameters, typed args. */
const greeter: ToolFactory<unknown, unknown, ToolSpecInput> = () => [
  {
    spec: { type: "function", name: "greet", description: "Greets someone", parameters: greetArgs },
    handler: schemaHandler(greetArgs, async (args) => {
      expectTypeOf(args).toEqualTypeOf<{ name: string; times: number; shout?: string | undefined }>();
      return `${Array.from({ length: args.times }, () => `hello ${args.name}`).join(", ")}${args.shout ?? ""}`;
    }),
    supportsParallel: true,
  },
];

async function run(calls: Array<Record<string, unknown>>): Promise<string[]> {
  const router = await createToolRouter({}, { factories: { greeter }, tools: { greeter: {} } });
  const runtime = new ToolCallRuntime(router, createTurnContext({ cwd: dir }));
  calls.forEach((args, i) => {
    runtime.submit({ type: "function_call", call_id: `c${i}`, name: "greet", arguments: JSON.stringify(args) });
  });
  const outcomes = await runtime.drainOutcomes();
  await router.close();
  return outcomes.map((o) => (o.item as { output: string }).output);
}

describe("tool specs from zod / Standard Schema", () => {
  it("pushSpec converts a zod schema with the MCP SDK's converter: the model sees JSON Schema", () => {
    const { specs } = new ToolRegistryBuilder()
      .pushSpec({ type: "function", name: "greet", description: "d", parameters: greetArgs }, { parallel: true })
      .build();
    const [tool] = toResponsesTools(specs.map((s) => s.spec)) as Array<{ parameters: Record<string, unknown> }>;
    expect(tool?.parameters).toMatchObject({
      type: "object",
      properties: {
        name: { type: "string", minLength: 1, description: "who to greet" },
        times: { type: "integer", default: 1 },
      },
      required: ["name"],
    });
    // The dialect is ours to pick; some providers refuse `$schema`.
    expect(tool?.parameters).not.toHaveProperty("$schema");
    expect(specs[0]?.supportsParallelToolCalls).toBe(true);
  });

  it("zod 3 schemas convert too", () => {
    const { specs } = new ToolRegistryBuilder()
      .pushSpec({ type: "function", name: "old", description: "d", parameters: z3.object({ path: z3.string() }) })
      .build();
    expect(specs[0]?.spec).toMatchObject({
      parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    });
  });

  it("a plugin's handler gets what the schema parsed; JSON Schema and refinement failures reach the model", async () => {
    const outputs = await run([
      { name: "ada", times: 2 },
      { name: "bob" }, // default filled by the schema
      { times: 1 }, // missing name: the JSON Schema check
      { name: "cy", shout: "quiet" }, // a refinement JSON Schema cannot say
      { name: "di", shout: "!" },
    ]);
    expect(outputs[0]).toBe("hello ada, hello ada");
    expect(outputs[1]).toBe("hello bob");
    expect(outputs[2]).toMatch(/^invalid arguments for greet: .*name/);
    expect(outputs[3]).toBe("invalid arguments for greet: /shout must be upper case");
    expect(outputs[4]).toBe("hello di!");
  });

  it("another library's schema converts through Standard JSON Schema", () => {
    const schema: StandardSchema<{ q: string }> = {
      "~standard": {
        version: 1,
        vendor: "hand",
        validate: (value) => ({ value: value as { q: string } }),
        jsonSchema: {
          input: ({ target }) => ({
            $schema: target === "draft-07" ? "http://json-schema.org/draft-07/schema#" : "?",
            type: "object",
            properties: { q: { type: "string" } },
          }),
        },
      },
    };
    const { specs } = new ToolRegistryBuilder()
      .pushSpec({ type: "function", name: "q", description: "d", parameters: schema })
      .build();
    expect(specs[0]?.spec).toEqual({
      type: "function",
      name: "q",
      description: "d",
      parameters: { type: "object", properties: { q: { type: "string" } } },
    });
  });

  it("a schema that gives no JSON Schema, or not an object, is refused naming the tool", () => {
    const opaque: StandardSchema = { "~standard": { version: 1, vendor: "opaque", validate: (value) => ({ value }) } };
    expect(() =>
      new ToolRegistryBuilder().pushSpec({ type: "function", name: "x", description: "d", parameters: opaque }),
    ).toThrow(
      "parameters of tool x: cannot convert to JSON Schema: a opaque schema gives no JSON Schema (it does not implement Standard JSON Schema)",
    );
    expect(() =>
      new ToolRegistryBuilder().pushSpec({ type: "function", name: "s", description: "d", parameters: z.string() }),
    ).toThrow('parameters of tool s must be an object schema, got "string"');
  });
});
