// @ts-check
// ESLint flat config. Type-checked typescript-eslint rules, Prettier owns formatting
// (eslint-config-prettier switches off the stylistic rules that would fight it), and the
// layering of DESIGN section 2 is enforced with `no-restricted-imports`, generated from the
// one table in layers.json.
import { readFileSync } from "node:fs";
import { URL } from "node:url";
import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import { defineConfig, globalIgnores } from "eslint/config";
import tseslint from "typescript-eslint";

/**
 * DESIGN section 2, "Imports point one way". Each src/<layer>/ folder lists the other layers
 * it may import; every layer not listed is forbidden. `src/cli` may import everything and
 * nothing may import `src/cli`. Root files (`src/index.ts`, `src/toolset.ts`) may import
 * every layer but cli; no layer may import `src/toolset.ts` (it is the composition root).
 *
 * To change the architecture, edit layers.json (the one table, which test/architecture.test.ts
 * reads too) and DESIGN section 2; the per-layer ESLint blocks are generated from it.
 *
 * @type {Record<string, readonly string[]>}
 */
const LAYERS = /** @type {{ layers: Record<string, readonly string[]> }} */ (
  JSON.parse(readFileSync(new URL("./layers.json", import.meta.url), "utf8"))
).layers;
/** Layers whose subfolders are separate modules (one per tool): a subfolder may import a
 * sibling subfolder only through its `index.js`, never its internals. */
const MODULAR_LAYERS = ["handlers"];
const CLI = "cli";
const LAYER_NAMES = [...Object.keys(LAYERS), CLI];

/** Escape a literal for use inside a RegExp. */
const re = (/** @type {string} */ s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/* `(\.\./)+` matches however deep the importing file sits in its layer folder
 * (src/<layer>/x.ts uses `../registry/…`, src/<layer>/<sub>/x.ts uses `../../registry/…`).
 * Limitation: a subfolder inside a layer that is named like a layer (e.g. src/sandbox/process/)
 * would be mistaken for that layer; keep subfolder names distinct from layer names. */
const UP = String.raw`^(?:\.\./)+`;
const HERE = String.raw`^\./`;

/**
 * The `no-restricted-imports` patterns for code at `prefix` (UP for files inside a layer
 * folder, HERE for files directly in src/) that may import `allowed` layers.
 * @param {string} from  layer name (for messages; "." for the root files, which may import every layer)
 * @param {string} prefix  regex source matching the path up to src/
 * @param {readonly string[]} allowed
 */
function layerPatterns(from, prefix, allowed) {
  return LAYER_NAMES.filter((to) => to !== from).map((to) =>
    allowed.includes(to)
      ? {
          // A modular layer (handlers) is reached through each folder's index.
          regex: MODULAR_LAYERS.includes(to)
            ? `${prefix}${re(to)}/(?![^/]+/index\\.js$)`
            : `${prefix}${re(to)}/(?!index\\.js$)`,
          caseSensitive: true,
          message: `Import the ${to} layer only through its index ('…/${to}/index.js'${MODULAR_LAYERS.includes(to) ? ", per folder" : ""}), not its internals (DESIGN section 2).`,
        }
      : {
          regex: `${prefix}${re(to)}(?:/|\\.js$|$)`,
          caseSensitive: true,
          message:
            to === CLI
              ? "Nothing imports src/cli (DESIGN section 2)."
              : `src/${from} must not import the ${to} layer (DESIGN section 2: ${from} may use ${allowed.join(", ") || "no other layer"}).`,
        },
  );
}

/** No layer imports the composition root. */
const noToolset = {
  regex: String.raw`^(?:\.\./)+toolset\.js$`,
  caseSensitive: true,
  message: "Only src/index.ts and src/cli may import src/toolset.ts, the composition root (DESIGN section 2).",
};

/** Sibling tool folders: `../<other>/<file>.js` is another module's internals. Checks files
 * one level down (src/handlers/<tool>/x.ts), which is every handler file today. */
const noSiblingInternals = (/** @type {string} */ layer) => ({
  regex: String.raw`^\.\./(?!(?:${LAYER_NAMES.map(re).join("|")})/)[^./][^/]*/(?!index\.js$)`,
  caseSensitive: true,
  message: `A src/${layer}/<folder>/ module must not import another ${layer} folder's internals; share code through a lower layer or the folder's index.js.`,
});

/**
 * @param {object[]} patterns
 * @returns {import("eslint").Linter.RulesRecord}
 */
const restrict = (patterns) => ({ "no-restricted-imports": ["error", { patterns }] });

const layerBlocks = [
  ...Object.entries(LAYERS).flatMap(([layer, allowed]) => {
    const patterns = [...layerPatterns(layer, UP, allowed), noToolset];
    return [
      { name: `layers/${layer}`, files: [`src/${layer}/**/*.ts`], rules: restrict(patterns) },
      // A later block's rule options replace an earlier one's, so the sub-module block repeats
      // the layer patterns.
      ...(MODULAR_LAYERS.includes(layer)
        ? [
            {
              name: `layers/${layer}/modules`,
              files: [`src/${layer}/*/**/*.ts`],
              rules: restrict([...patterns, noSiblingInternals(layer)]),
            },
          ]
        : []),
    ];
  }),
  {
    name: "layers/root",
    files: ["src/*.ts"],
    rules: restrict(layerPatterns(".", HERE, Object.keys(LAYERS))),
  },
  {
    // The package's subpath entry points (package.json `exports`): like the root, every layer but cli.
    name: "layers/subpaths",
    files: ["src/subpaths/*.ts"],
    rules: restrict([...layerPatterns("subpaths", UP, Object.keys(LAYERS)), noToolset]),
  },
  {
    name: "layers/cli",
    files: [`src/${CLI}/**/*.ts`],
    rules: restrict(layerPatterns(CLI, UP, Object.keys(LAYERS))),
  },
];

export default defineConfig(
  globalIgnores(["dist/", "coverage/", "bench/.build/", "bench/node_modules/", "bench/results/"]),

  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  {
    name: "project/typescript",
    languageOptions: {
      parserOptions: {
        // Each file is checked with the nearest tsconfig.json (tsconfig.json for src/ and
        // test/, bench/tsconfig.json for bench/). Root config files outside every tsconfig
        // use the default project.
        projectService: { allowDefaultProject: ["vitest.config.ts"] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-explicit-any": "error",
      // strictTypeChecked also forbids numbers in template literals (`${ms}ms`), ~145 hits of
      // harmless code; nullish, `any`, arrays and objects stay forbidden.
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
      "no-console": "error",
      // Values from outside (JSON, plain-JS callers, plugin handlers, configs) are hostile until
      // checked: a public entry point re-checks what its types already promise, on purpose.
      "@typescript-eslint/no-unnecessary-condition": "off",
      // Rejecting with an AbortSignal's reason mirrors the platform (`signal.throwIfAborted()`).
      "@typescript-eslint/prefer-promise-reject-errors": [
        "error",
        { allowThrowingAny: true, allowThrowingUnknown: true },
      ],
      "@typescript-eslint/no-deprecated": [
        "error",
        {
          allow: [
            // The low-level Server is deliberate: a proxy needs raw handlers, and McpServer
            // answers an unknown tool with isError where the specification wants -32602.
            { from: "package", package: "@modelcontextprotocol/sdk", name: "Server" },
            // SSE stays as the fallback for legacy servers (DESIGN section 7) and in the test
            // fixture that plays one.
            { from: "package", package: "@modelcontextprotocol/sdk", name: "SSEClientTransport" },
            { from: "package", package: "@modelcontextprotocol/sdk", name: "SSEServerTransport" },
          ],
        },
      ],
      // An async function without await is how a Promise-returning contract (`handle`,
      // `createToolRouter`) turns a throw into a rejection.
      "@typescript-eslint/require-await": "off",
      // `let service; openSession({ onEvent: (e) => service?.onEvent(e) }); service = ...`:
      // a closure that reads the binding before its one assignment.
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
      // `const { $id: _id, ...rest } = schema` drops a key on purpose.
      "@typescript-eslint/no-unused-vars": ["error", { varsIgnorePattern: "^_", argsIgnorePattern: "^_" }],
    },
  },
  {
    name: "project/js",
    files: ["**/*.js", "**/*.mjs", "**/*.cjs"],
    extends: [tseslint.configs.disableTypeChecked],
  },

  ...layerBlocks,
  {
    name: "project/cli",
    files: [`src/${CLI}/**/*.ts`],
    rules: { "no-console": "off" },
  },

  {
    name: "project/tests-and-bench",
    files: ["test/**/*.ts", "bench/**/*.ts"],
    rules: {
      // Terminal escape codes (\x1b) in the live-status assertions.
      "no-control-regex": "off",
      // `delete process.env[name]` restores the environment a test changed.
      "@typescript-eslint/no-dynamic-delete": "off",
      // `arr[0]!`, `map.get(k)!`: a wrong assumption fails the test at once, which is the point.
      "@typescript-eslint/no-non-null-assertion": "off",
      // Fixtures and parsed wire payloads (JSON.parse, MCP results) are untyped by nature and
      // the assertions check their shape. bench/peers/ imports the peer frameworks from
      // bench/node_modules, which CI does not install: their types are unresolved there.
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      // Test doubles and peer adapters implement async interfaces without awaiting anything.
      "@typescript-eslint/require-await": "off",
    },
  },

  prettier,
);
