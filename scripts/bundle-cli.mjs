/**
 * `node scripts/bundle-cli.mjs [--outdir DIR]` (part of `npm run build`): the `toolcall` command
 * as a few bundled files in dist/bin/. Loading dist/'s ~170 files and their packages one by one
 * cost a third of `toolcall exec`'s start-up (bench `cli`). Each command stays a chunk of its
 * own, imported when it runs, so `exec` never parses the MCP SDKs. DIR must lie inside this
 * package (the version is read from its package.json).
 */
import { build } from "esbuild";
import { readFile, readdir, rm } from "node:fs/promises";
import path from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
/**
 * src/registry/arguments.ts requires ajv through `createRequire`, which esbuild does not follow:
 * ajv would load file by file from node_modules (20 ms instead of 8), as a second copy beside
 * the MCP SDK's. Without that line its `require` calls are the bundle's own: still lazy.
 */
const LAZY_REQUIRE = "const require = createRequire(import.meta.url);";
const bundledRequires = {
  name: "bundled-requires",
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]registry[\\/]arguments\.ts$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      if (!source.includes(LAZY_REQUIRE)) throw new Error(`${args.path} no longer has: ${LAZY_REQUIRE}`);
      return { contents: source.replace(LAZY_REQUIRE, ""), loader: "ts" };
    });
  },
};
const at = process.argv.indexOf("--outdir");
const outdir = at > 0 ? path.resolve(process.argv[at + 1] ?? "") : path.join(root, "dist", "bin");

const command = await build({
  absWorkingDir: root,
  metafile: true,
  // The demo server sits beside the demo's chunk, where src/cli/demo.ts looks for it; the
  // network bridge beside the chunks, where src/process/netBridgeEntry.ts looks for it.
  entryPoints: {
    toolcall: "src/cli/main.ts",
    "demo/server": "src/cli/demo/server.ts",
    netBridgeMain: "src/process/netBridgeMain.ts",
  },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // Bundled CommonJS packages call require(): the ESM chunks get one.
  banner: {
    js: 'import { createRequire as __toolcallRequire } from "node:module"; const require = __toolcallRequire(import.meta.url);',
  },
  plugins: [bundledRequires],
  // It finds its own tree-sitter.wasm next to its module: it stays in node_modules.
  external: ["web-tree-sitter"],
  logLevel: "warning",
});

// The sandbox's resident helper (src/sandbox/helper/main.ts), where src/sandbox/helper/script.ts
// looks for it, and the command spawner (src/process/spawnerMain.ts), where spawner.ts looks for
// it: files of their own (no shared chunk, no banner), so they start fast and load nothing from
// node_modules (the spawner's small address space is what makes its forks cheap).
const helper = await build({
  absWorkingDir: root,
  metafile: true,
  entryPoints: { "sandbox-helper": "src/sandbox/helper/main.ts", spawnerMain: "src/process/spawnerMain.ts" },
  outdir,
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  logLevel: "warning",
});

// Chunk names follow their content: an older build's chunks would stay beside these and ship
// with the package (npm pack takes all of dist/). What these builds did not write goes.
const written = new Set(
  [command, helper].flatMap((r) => Object.keys(r.metafile.outputs).map((out) => path.resolve(root, out))),
);
for (const entry of await readdir(outdir, { recursive: true, withFileTypes: true })) {
  const file = path.join(entry.parentPath, entry.name);
  if (entry.isFile() && file.endsWith(".js") && !written.has(file)) await rm(file);
}
