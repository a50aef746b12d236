/**
 * `npm test`'s set-up (npm runs it as `pretest`), so the README's `npm ci && npm test` is the
 * whole set-up on a fresh clone: the MCP conformance suite's own folder installed (it needs
 * Node 22, from the npm `node` package, apart from the project's dependencies), and dist/
 * built when any source is newer than it (the CLI tests run the built command).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

function run(args, cwd) {
  const result = spawnSync(npm, args, { cwd, stdio: "inherit" });
  if (result.status !== 0) {
    process.stderr.write(`pretest: npm ${args.join(" ")} failed in ${cwd}\n`);
    process.exit(result.status ?? 1);
  }
}

const conformance = path.join(root, "test/conformance");
if (!existsSync(path.join(conformance, "node_modules/@modelcontextprotocol/conformance"))) {
  run(["ci", "--no-audit", "--no-fund"], conformance);
}

/** The newest modification time under `p` (a file or a folder), skipping node_modules. */
function newest(p) {
  const st = statSync(p, { throwIfNoEntry: false });
  if (!st) return 0;
  if (!st.isDirectory()) return st.mtimeMs;
  let max = st.mtimeMs;
  for (const name of readdirSync(p)) if (name !== "node_modules") max = Math.max(max, newest(path.join(p, name)));
  return max;
}

const outputs = ["dist/index.js", "dist/bin/toolcall.js"].map((f) => path.join(root, f));
const built = Math.min(...outputs.map((f) => statSync(f, { throwIfNoEntry: false })?.mtimeMs ?? 0));
const inputs = ["src", "scripts", "package.json", "package-lock.json", "tsconfig.json", "tsconfig.build.json"];
if (Math.max(...inputs.map((f) => newest(path.join(root, f)))) > built) run(["run", "build", "--silent"], root);
