import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const src = fileURLToPath(new URL("../src", import.meta.url));

/** DESIGN section 2: util <- protocol <- turn <- registry <- router <- runtime; handlers and mcp
 * use protocol, turn and registry; server serves the router's tools over MCP; cli uses
 * everything; nothing imports cli. The router reaches the built-in handlers only to assemble
 * them in `fromConfig`. */
const allowed: Record<string, string[]> = {
  util: [],
  protocol: ["util"],
  turn: ["protocol"],
  registry: ["protocol", "turn"],
  router: ["protocol", "turn", "registry", "handlers"],
  runtime: ["protocol", "turn", "registry", "router"],
  handlers: ["util", "protocol", "turn", "registry"],
  mcp: ["util", "protocol", "turn", "registry"],
  server: ["util", "protocol", "turn", "registry", "router", "runtime"],
  cli: ["util", "protocol", "turn", "registry", "router", "runtime", "handlers", "mcp", "server"],
  ".": ["protocol", "turn", "registry", "router", "runtime", "handlers", "mcp", "server"],
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith(".ts") ? [path] : [];
  });
}

const layerOf = (path: string): string => {
  const rel = relative(src, path);
  return rel.includes("/") ? rel.split("/")[0]! : ".";
};

describe("architecture", () => {
  it("imports point one way between layers", () => {
    const violations: string[] = [];
    for (const file of files(src)) {
      const from = layerOf(file);
      for (const m of readFileSync(file, "utf8").matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)) {
        const to = layerOf(resolve(dirname(file), m[1]!));
        if (to !== from && !allowed[from]?.includes(to)) violations.push(`${relative(src, file)} -> ${m[1]}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it("library code does not write to the console", () => {
    const offenders = files(src)
      .filter((f) => layerOf(f) !== "cli")
      .filter((f) => /console\.(log|error|warn|info)\(/.test(readFileSync(f, "utf8")));
    expect(offenders.map((f) => relative(src, f))).toEqual([]);
  });
});
