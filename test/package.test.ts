import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const pkg = JSON.parse(readFileSync(`${root}package.json`, "utf8")) as {
  exports: Record<string, string | { types: string; import: string }>;
  bin: Record<string, string>;
};

/** The bundled command (scripts/bundle-cli.mjs) and its entry point. */
const BUNDLED: Record<string, string> = { "./dist/bin/toolcall.js": "src/cli/main.ts" };

/** `./dist/a/b.js` (what the build emits) -> `src/a/b.ts` (what it is built from). */
const sourceOf = (distPath: string): string =>
  BUNDLED[distPath] ?? distPath.replace(/^\.\/dist\//, "src/").replace(/\.(d\.ts|js)$/, ".ts");

describe("package surface", () => {
  it("every export and the bin point at a module the build emits", () => {
    const targets = Object.values(pkg.exports).flatMap((t) => (typeof t === "string" ? [] : [t.types, t.import]));
    targets.push(...Object.values(pkg.bin).map((b) => `./${b}`));
    for (const target of targets) expect(existsSync(`${root}${sourceOf(target)}`), target).toBe(true);
  });

  it("the root exports no internals", async () => {
    const root = await import("../src/index.js");
    for (const internal of [
      "SharedExclusiveLock",
      "registerToolFactory",
      "SchemaValidatorCache",
      "handlerMatchesKind",
      "emitEvent",
      "dynamicCallBroker",
      "processGroupAlive",
      "HeadTailBuffer",
    ]) {
      expect(Object.keys(root), internal).not.toContain(internal);
    }
    for (const contract of [
      "ToolRouter",
      "ToolCallRuntime",
      "createToolRouter",
      "createTurnContext",
      "ReadinessFlag",
      "ToolRegistryBuilder",
      "FunctionCallError",
      "FatalToolCallError",
      "McpConnectionManager",
      "toResponsesTools",
    ]) {
      expect(Object.keys(root), contract).toContain(contract);
    }
  });
});
