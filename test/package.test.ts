import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, rm, stat, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const pkg = JSON.parse(readFileSync(`${root}package.json`, "utf8")) as {
  exports: Record<string, string | { types: string; import: string; default: string }>;
  typesVersions: Record<string, Record<string, string[]>>;
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

// What `npm pack` would publish, from the built dist/ (CI builds first; scripts/pretest.mjs too).
describe("npm pack contents", () => {
  const pack = async (): Promise<Map<string, number>> => {
    if (!existsSync(path.join(root, "dist/bin/toolcall.js"))) throw new Error("dist/ is missing: run `npm run build`");
    const { stdout } = await promisify(execFile)("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      cwd: root,
      maxBuffer: 64 * 1024 * 1024,
    });
    const [report] = JSON.parse(stdout) as Array<{ files: Array<{ path: string; size: number }> }>;
    return new Map((report?.files ?? []).map((f) => [f.path, f.size]));
  };

  it("ships dist/, LICENSE, README and package.json; every export, types path and bin; no source maps", async () => {
    const files = await pack();
    const outside = [...files.keys()].filter((f) => !f.startsWith("dist/")).sort();
    expect(outside).toEqual(["LICENSE", "README.md", "package.json"]);
    const targets = [
      ...Object.values(pkg.exports).flatMap((t) => (typeof t === "string" ? [t] : [t.types, t.import, t.default])),
      ...Object.values(pkg.typesVersions["*"] ?? {}).flat(),
      ...Object.values(pkg.bin),
    ];
    expect(targets.length).toBeGreaterThan(20);
    for (const target of targets) expect(files.has(target.replace(/^\.\//, "")), target).toBe(true);
    // Maps would point at src/, which is not shipped.
    const maps = [...files.keys()].filter((f) => f.endsWith(".map"));
    expect(maps).toEqual([]);
    for (const file of files.keys()) {
      if (!/\.(js|d\.ts)$/.test(file)) continue;
      expect(readFileSync(path.join(root, file), "utf8"), file).not.toContain("sourceMappingURL");
    }
  });

  it("every chunk of the bundled command is reachable from an entry: no stale chunk of an older build", async () => {
    const files = await pack();
    const bin = [...files.keys()].filter((f) => f.startsWith("dist/bin/"));
    const entries = [
      "dist/bin/toolcall.js",
      "dist/bin/demo/server.js",
      "dist/bin/netBridgeMain.js",
      "dist/bin/sandbox-helper.js",
      "dist/bin/spawnerMain.js",
    ];
    const seen = new Set<string>();
    const queue = [...entries];
    while (queue.length > 0) {
      const file = queue.pop() as string;
      if (seen.has(file)) continue;
      seen.add(file);
      const text = readFileSync(path.join(root, file), "utf8");
      for (const m of text.matchAll(/["'](\.{1,2}\/[^"']*?-[A-Z0-9]{8}\.js)["']/g)) {
        queue.push(path.posix.join(path.posix.dirname(file), m[1] as string));
      }
    }
    expect(bin.filter((f) => !seen.has(f))).toEqual([]);
  });

  // The subpaths under TypeScript's legacy `node` resolution, which knows no `exports`:
  // `typesVersions` is what finds their types (TS2307 without it).
  it("subpath types resolve under moduleResolution node", async () => {
    const project = await mkdtemp(path.join(os.tmpdir(), "toolcall-types-"));
    try {
      const installed = path.join(project, "node_modules", "toolcall-runtime");
      await mkdir(installed, { recursive: true });
      await symlink(path.join(root, "dist"), path.join(installed, "dist"));
      await cp(path.join(root, "package.json"), path.join(installed, "package.json"));
      await symlink(path.join(root, "node_modules"), path.join(installed, "node_modules"));
      await writeFile(
        path.join(project, "use.ts"),
        [
          'import { createToolRouter, schemaHandler } from "toolcall-runtime";',
          'import { aiSdkTools } from "toolcall-runtime/ai-sdk";',
          'import { openAIAgentsTools } from "toolcall-runtime/openai-agents";',
          'import { langchainTools } from "toolcall-runtime/langchain";',
          'import { shellToolFactory } from "toolcall-runtime/shell";',
          'import { applyPatch } from "toolcall-runtime/apply_patch";',
          'import { runProgram } from "toolcall-runtime/process";',
          "export const all = [createToolRouter, schemaHandler, aiSdkTools, openAIAgentsTools, langchainTools, shellToolFactory, applyPatch, runProgram];",
          "",
        ].join("\n"),
      );
      const options = { module: "commonjs", moduleResolution: "node", strict: true, skipLibCheck: true, noEmit: true };
      await writeFile(
        path.join(project, "tsconfig.json"),
        JSON.stringify({ compilerOptions: options, files: ["use.ts"] }),
      );
      const tsc = path.join(root, "node_modules/typescript/bin/tsc");
      const run = await promisify(execFile)(process.execPath, [tsc, "-p", project]).catch((err: unknown) => ({
        stdout: (err as { stdout?: string }).stdout ?? "tsc failed",
      }));
      expect(run.stdout).toBe("");
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  }, 120_000);
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
