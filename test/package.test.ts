import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { cp, mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const pkg = JSON.parse(readFileSync(`${root}package.json`, "utf8")) as {
  exports: Record<string, string | { types: string; import: string; default: string }>;
  bin: Record<string, string>;
};

/** `./dist/a/b.js` (what the build emits) -> `src/a/b.ts` (what it is built from). */
const sourceOf = (distPath: string): string => distPath.replace(/^\.\/dist\//, "src/").replace(/\.(d\.ts|js)$/, ".ts");

describe("package surface", () => {
  it("every export and the bin point at a module the build emits", () => {
    const targets = Object.values(pkg.exports).flatMap((t) =>
      typeof t === "string" ? [] : [t.types, t.import, t.default],
    );
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

  // Node 20.19+ loads ES modules with require() (no top-level await in our graph); the
  // `default` condition lets it resolve. Built here, installed by name in a temp project.
  it.skipIf(!(process.features as { require_module?: boolean }).require_module)(
    "require('toolcall-runtime') works from CommonJS, subpaths too",
    async () => {
      const project = await mkdtemp(path.join(os.tmpdir(), "toolcall-require-"));
      try {
        const installed = path.join(project, "node_modules", "toolcall-runtime");
        await mkdir(installed, { recursive: true });
        await promisify(execFile)(
          process.execPath,
          [
            path.join(root, "node_modules/typescript/bin/tsc"),
            "-p",
            path.join(root, "tsconfig.build.json"),
            "--outDir",
            path.join(installed, "dist"),
          ],
          { cwd: root },
        );
        await cp(path.join(root, "package.json"), path.join(installed, "package.json"));
        // Its dependencies, as an install would provide them.
        await symlink(path.join(root, "node_modules"), path.join(installed, "node_modules"));
        const script = [
          "const t = require('toolcall-runtime');",
          "const shell = require('toolcall-runtime/shell');",
          "console.log(typeof t.createToolRouter, typeof t.ToolCallRuntime, typeof t.SidecarServer, typeof shell.shellToolFactory);",
        ].join("\n");
        const { stdout } = await promisify(execFile)(process.execPath, ["-e", script], { cwd: project });
        expect(stdout.trim()).toBe("function function function function");
      } finally {
        await rm(project, { recursive: true, force: true });
      }
    },
  );
});
