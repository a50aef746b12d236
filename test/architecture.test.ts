import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const src = fileURLToPath(new URL("../src", import.meta.url));

/**
 * DESIGN section 2: util <- protocol <- turn <- registry <- policy <- dispatch <- router <- runtime;
 * process and sandbox use util, protocol and turn; handlers and mcp use those and registry;
 * adapters use protocol; server uses runtime, router and adapters; the composition root
 * (`src/toolset.ts`) composes; cli uses everything; nothing imports cli.
 */
const below = (
  JSON.parse(readFileSync(fileURLToPath(new URL("../layers.json", import.meta.url)), "utf8")) as {
    layers: Record<string, string[]>;
  }
).layers;
const everythingBut = (...not: string[]): string[] =>
  [...Object.keys(below), "handlers", "mcp", "toolset.ts", "server"].filter((l) => !not.includes(l));
const allowed: Record<string, string[]> = {
  ...below,
  "toolset.ts": everythingBut("cli", "server", "toolset.ts"),
  cli: everythingBut("cli"),
  "index.ts": everythingBut("cli", "index.ts"),
  // The package's subpath entry points: export lists, like the root.
  subpaths: everythingBut("cli", "index.ts", "toolset.ts", "subpaths"),
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith(".ts") ? [path] : [];
  });
}

/** The layer a file belongs to: its top folder under src, or its own name for a root file. */
const layerOf = (path: string): string => relative(src, path).split(sep)[0]!.replace(/\.js$/, ".ts");

/** Relative imports of every src file, resolved: `[file, specifier, target]`. */
function imports(): Array<[string, string, string]> {
  return files(src).flatMap((file) =>
    [...readFileSync(file, "utf8").matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)].map(
      (m): [string, string, string] => [file, m[1]!, resolve(dirname(file), m[1]!)],
    ),
  );
}

/**
 * The checks, as functions of the import list, so the test can also show that each one fires
 * on a known-bad import.
 */
function layerViolations(list: Array<[string, string, string]>): string[] {
  return list
    .filter(([file, , target]) => {
      const from = layerOf(file);
      const to = layerOf(target);
      return to !== from && !allowed[from]?.includes(to);
    })
    .map(([file, spec]) => `${relative(src, file)} -> ${spec}`);
}

/**
 * A layer is reached through its index: `../registry/index.js`, never `../registry/handler.js`.
 * The built-in handler folders are each their own unit, used from outside through its `index.ts`.
 */
function internalReaches(list: Array<[string, string, string]>): string[] {
  return list
    .filter(([file, , target]) => {
      const from = layerOf(file);
      const to = layerOf(target);
      const parts = relative(src, target).split(sep);
      if (to === "handlers") {
        const tool = parts[1];
        const fromTool = from === "handlers" ? relative(src, file).split(sep)[1] : undefined;
        if (tool === fromTool) return false;
        return parts.length !== 3 || parts[2] !== "index.js";
      }
      if (to === from || to.endsWith(".ts") || to.endsWith(".js")) return false;
      return !(parts.length === 2 && parts[1] === "index.js");
    })
    .map(([file, spec]) => `${relative(src, file)} -> ${spec}`);
}

describe("architecture", () => {
  it("imports point one way between layers", () => {
    expect(layerViolations(imports())).toEqual([]);
  });

  it("no layer reaches into another layer's internals", () => {
    expect(internalReaches(imports())).toEqual([]);
  });

  it("the checks fire on a reach upwards and on a reach into internals", () => {
    const at = (file: string, spec: string): [string, string, string] => {
      const full = join(src, file);
      return [full, spec, resolve(dirname(full), spec)];
    };
    expect(layerViolations([at("router/router.ts", "../handlers/shell/index.js")])).toHaveLength(1);
    expect(layerViolations([at("protocol/items.ts", "../turn/index.js")])).toHaveLength(1);
    expect(layerViolations([at("mcp/manager.ts", "../cli/session.js")])).toHaveLength(1);
    expect(layerViolations([at("runtime/runtime.ts", "../router/index.js")])).toEqual([]);
    // The pipeline sits below the router: it never calls back up into the router or the runtime.
    expect(layerViolations([at("dispatch/pipeline.ts", "../router/index.js")])).toHaveLength(1);
    expect(layerViolations([at("dispatch/pipeline.ts", "../runtime/index.js")])).toHaveLength(1);
    expect(layerViolations([at("runtime/runtime.ts", "../dispatch/index.js")])).toEqual([]);
    // Asking a person lives in policy, below dispatch: policy never reaches up to it.
    expect(layerViolations([at("policy/stage.ts", "../dispatch/index.js")])).toHaveLength(1);
    expect(internalReaches([at("runtime/runtime.ts", "../router/buildToolCall.js")])).toHaveLength(1);
    expect(internalReaches([at("handlers/read_file/handler.ts", "../../registry/handler.js")])).toHaveLength(1);
    expect(internalReaches([at("handlers/grep_files/fallback.ts", "../read_file/lines.js")])).toHaveLength(1);
    expect(internalReaches([at("toolset.ts", "./handlers/read_file/handler.js")])).toHaveLength(1);
    expect(internalReaches([at("toolset.ts", "./handlers/read_file/index.js")])).toEqual([]);
    expect(internalReaches([at("handlers/shell/execHandler.ts", "./exec.js")])).toEqual([]);
  });

  it("only src/process starts processes (and the MCP stdio transport, for the user's own servers)", () => {
    // Every command a tool runs goes through the turn's ExecEnvironment (DESIGN section 12).
    const spawning = files(src)
      .filter((f) => /from "node:child_process"/.test(readFileSync(f, "utf8")))
      .map((f) => relative(src, f).split(sep).join("/"))
      .filter((f) => !f.startsWith("process/") && f !== "mcp/stdioTransport.ts");
    expect(spawning).toEqual([]);
    expect(
      layerViolations([[join(src, "handlers/shell/exec.ts"), "../../process/index.js", join(src, "process/index.js")]]),
    ).toHaveLength(1);
  });

  it("library code does not write to the console", () => {
    const offenders = files(src)
      .filter((f) => layerOf(f) !== "cli")
      .filter((f) => /console\.(log|error|warn|info)\(/.test(readFileSync(f, "utf8")));
    expect(offenders.map((f) => relative(src, f))).toEqual([]);
  });
});

describe("file sizes (issue 34: one concept per file)", () => {
  it("no source file is over 400 lines; the router and the runtime stay under 300", () => {
    const lines = (path: string): number => readFileSync(path, "utf8").split("\n").length - 1;
    const over = files(src)
      .map((f) => [relative(src, f), lines(f)] as const)
      .filter(
        ([name, n]) => n > (name === join("router", "router.ts") || name === join("runtime", "runtime.ts") ? 300 : 400),
      );
    expect(over).toEqual([]);
  });
});
