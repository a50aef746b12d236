import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { JsonSchema } from "../../src/protocol/index.js";
import { SchemaValidatorCache } from "../../src/registry/index.js";
import { NOT_PLAIN, plainArguments, prepareArguments } from "../../src/repair/index.js";

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

  // Dispatch takes the shortcut first: it must never take a call that needs repair or is refused.
  it("no repairable or refused call is plain; each repaired call's arguments, sent well-formed, are", () => {
    for (const c of [...corpus.repaired, ...corpus.refused]) {
      expect(plainArguments(c.arguments, check(c.tool), true), c.name).toBe(NOT_PLAIN);
    }
    for (const c of corpus.repaired) {
      expect(plainArguments(JSON.stringify(c.args), check(c.tool), true), c.name).toEqual(c.args);
    }
    // A JSON string is plain only where repair is off (then the schema judges it as a string).
    expect(plainArguments(JSON.stringify('{"a":1}'), null, true)).toBe(NOT_PLAIN);
    expect(plainArguments(JSON.stringify('{"a":1}'), null, false)).toBe('{"a":1}');
    expect(plainArguments("  ", null, true)).toEqual({});
  });
});
