import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, rm, stat, symlink } from "node:fs/promises";
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

/** The bundled command (scripts/bundle-cli.mjs) and its entry point. */
const BUNDLED: Record<string, string> = { "./dist/bin/toolcall.js": "src/cli/main.ts" };

/** `./dist/a/b.js` (what the build emits) -> `src/a/b.ts` (what it is built from). */
const sourceOf = (distPath: string): string =>
  BUNDLED[distPath] ?? distPath.replace(/^\.\/dist\//, "src/").replace(/\.(d\.ts|js)$/, ".ts");

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
      "toAnthropicTools",
      "fromChatCompletions",
      "toChatCompletionsMessages",
      "fromAnthropic",
      "toAnthropicToolResults",
    ]) {
      expect(Object.keys(root), contract).toContain(contract);
    }
  });

  it("what is not the contract is under a subpath, not in the root", async () => {
    const root = Object.keys(await import("../src/index.js"));
    const subpaths: Record<string, { module: Record<string, unknown>; names: string[] }> = {
      "./handlers": {
        module: await import("../src/subpaths/handlers.js"),
        names: ["ShellHandler", "READ_FILE_SPEC", "truncateText"],
      },
      "./policy": {
        module: await import("../src/subpaths/policy.js"),
        names: ["loadClaudeSettings", "reduceCommands"],
      },
      "./sandbox": { module: await import("../src/subpaths/sandbox.js"), names: ["runCommand", "SandboxDenial"] },
      "./mcp": {
        module: await import("../src/subpaths/mcp.js"),
        names: ["loadMcpConfig", "McpHandler", "McpStartupError"],
      },
      "./server": {
        module: await import("../src/subpaths/server.js"),
        names: ["SidecarServer", "serveMcpHttp", "McpToolService"],
      },
    };
    for (const [subpath, { module, names }] of Object.entries(subpaths)) {
      expect(pkg.exports[subpath], subpath).toBeDefined();
      for (const name of names) {
        expect(Object.keys(module), `${subpath} ${name}`).toContain(name);
        expect(root, name).not.toContain(name);
      }
    }
  });

  // Node 20.19+ loads ES modules with require() (no top-level await in our graph); the
  // `default` condition lets it resolve. Installed by name in a temp project: the build in
  // dist/ when it is newer than every source (CI builds first), else a build made here.
  // Skipped on an older Node, which cannot require() an ES module at all.
  it.skipIf(!(process.features as { require_module?: boolean }).require_module)(
    "require('toolcall-runtime') works from CommonJS, subpaths too",
    async () => {
      const project = await mkdtemp(path.join(os.tmpdir(), "toolcall-require-"));
      try {
        const installed = path.join(project, "node_modules", "toolcall-runtime");
        await mkdir(installed, { recursive: true });
        if (await builtDistIsFresh()) {
          await symlink(path.join(root, "dist"), path.join(installed, "dist"));
        } else {
          const tsc = path.join(root, "node_modules/typescript/bin/tsc");
          const config = path.join(root, "tsconfig.build.json");
          await promisify(execFile)(process.execPath, [tsc, "-p", config, "--outDir", path.join(installed, "dist")]);
        }
        await cp(path.join(root, "package.json"), path.join(installed, "package.json"));
        // Its dependencies, as an install would provide them.
        await symlink(path.join(root, "node_modules"), path.join(installed, "node_modules"));
        const script = [
          "const t = require('toolcall-runtime');",
          "const shell = require('toolcall-runtime/shell');",
          "const server = require('toolcall-runtime/server');",
          "const handlers = require('toolcall-runtime/handlers');",
          "console.log(typeof t.createToolRouter, typeof t.ToolCallRuntime, typeof server.SidecarServer, typeof shell.shellToolFactory, typeof handlers.ShellHandler);",
        ].join("\n");
        const { stdout } = await promisify(execFile)(process.execPath, ["-e", script], { cwd: project });
        expect(stdout.trim()).toBe("function function function function function");
      } finally {
        await rm(project, { recursive: true, force: true });
      }
    },
    120_000,
  );
});

/** dist/index.js exists and no file under src/ changed after it was built. */
async function builtDistIsFresh(): Promise<boolean> {
  const built = await stat(path.join(root, "dist/index.js")).catch(() => undefined);
  if (!built) return false;
  for (const entry of await readdir(path.join(root, "src"), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const { mtimeMs } = await stat(path.join(entry.parentPath, entry.name));
    if (mtimeMs > built.mtimeMs) return false;
  }
  return true;
}
