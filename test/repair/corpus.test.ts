import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { JsonSchema } from "../../src/protocol/index.js";
import { SchemaValidatorCache } from "../../src/registry/index.js";
import { prepareArguments } from "../../src/repair/index.js";

interface Corpus {
  schemas: Record<string, JsonSchema>;
  repaired: Array<{ name: string; tool: string; arguments: string; args: unknown; repairs: string[] }>;
  refused: Array<{ name: string; tool: string; arguments: string; error: string; exact: boolean }>;
}

const corpus = JSON.parse(
  readFileSync(new URL("../fixtures/repair/malformed-calls.json", import.meta.url), "utf8"),
) as Corpus;
const validators = new SchemaValidatorCache();
const check = (tool: string) => validators.validatorFor(corpus.schemas[tool] as JsonSchema, tool);

describe("the malformed-call corpus (DESIGN section 18)", () => {
  it("has at least 60 repairable calls and 20 near-misses", () => {
    expect(corpus.repaired.length).toBeGreaterThanOrEqual(60);
    expect(corpus.refused.length).toBeGreaterThanOrEqual(20);
  });

  it.each(corpus.repaired.map((c) => [c.name, c] as const))("repairs %s", (_, c) => {
    const prepared = prepareArguments(c.tool, c.arguments, check(c.tool), true);
    expect(prepared.error).toBeUndefined();
    expect(prepared).toMatchObject({ args: c.args });
    expect(prepared.repairs.map((r) => r.kind)).toEqual(c.repairs);
    // Without repair, each of them is refused: the repair is what made it run.
    expect(prepareArguments(c.tool, c.arguments, check(c.tool), false).error).toBeDefined();
  });

  it.each(corpus.refused.map((c) => [c.name, c] as const))("never repairs %s", (_, c) => {
    const prepared = prepareArguments(c.tool, c.arguments, check(c.tool), true);
    expect(prepared.repairs).toEqual([]);
    if (c.exact) expect(prepared.error).toBe(c.error);
    else expect(prepared.error?.startsWith(c.error)).toBe(true);
  });
});
