import { existsSync } from "node:fs";
import { mkdir, rename } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type * as Esbuild from "esbuild";

/*
 * Where the helper's program is: `sandbox-helper.js` beside the bundled CLI's chunks (dist/bin,
 * scripts/bundle-cli.mjs), or `main.js` beside this module (tsc's dist/). Run from the
 * TypeScript sources (the tests), it is bundled once with esbuild, a development dependency,
 * into node_modules/.cache: the helper never loads anything from node_modules at run time.
 */

let found: Promise<string> | undefined;

async function bundleFromSources(here: string): Promise<string> {
  const root = path.resolve(path.dirname(here), "..", "..", "..");
  const dir = path.join(root, "node_modules", ".cache", "toolcall-sandbox-helper");
  const out = path.join(dir, "sandbox-helper.js");
  await mkdir(dir, { recursive: true });
  const tmp = `${out}.${process.pid}.tmp`;
  const esbuild = "esbuild"; // a variable: only the sources need it, never the built package
  const { build } = (await import(esbuild)) as typeof Esbuild;
  await build({
    entryPoints: [path.join(path.dirname(here), "main.ts")],
    outfile: tmp,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    logLevel: "silent",
  });
  await rename(tmp, out); // whole or not at all, with parallel test workers
  return out;
}

/** The helper's entry script, an absolute path. */
export function helperScript(): Promise<string> {
  return (found ??= (async () => {
    const here = fileURLToPath(import.meta.url);
    for (const name of ["sandbox-helper.js", "main.js"]) {
      const candidate = path.join(path.dirname(here), name);
      if (existsSync(candidate)) return candidate;
    }
    if (here.endsWith(".ts")) return bundleFromSources(here);
    throw new Error(`the sandbox helper's program is missing beside ${here}; rebuild the package`);
  })());
}
