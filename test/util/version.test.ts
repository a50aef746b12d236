import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PACKAGE_VERSION } from "../../src/util/index.js";

describe("PACKAGE_VERSION", () => {
  it("is package.json's version", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
    expect(PACKAGE_VERSION).toBe(pkg.version);
  });
});
