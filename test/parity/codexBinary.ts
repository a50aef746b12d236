import { execFile, spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { copyFile, mkdir, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { startMockResponses } from "./mockResponses.js";

/** The Codex release the differential test follows; `CODEX_PARITY_VERSION=0.169.0` runs the previous one. */
export const CODEX_VERSION = process.env.CODEX_PARITY_VERSION ?? "0.171.0";
/** Fixtures captured from that release (`test/fixtures/codex-0.171/`). */
export const CODEX_FIXTURES = new URL(`../fixtures/codex-${CODEX_VERSION.replace(/\.0$/, "")}/`, import.meta.url);
const CACHE_DIR = join(
  process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"),
  "toolcall-test",
  `codex-${CODEX_VERSION}`,
);
const CATALOG = fileURLToPath(new URL("model-catalog.json", CODEX_FIXTURES));

/** The native binary the npm package ships for this platform (the package's JS launcher only spawns it). */
function findBinary(): string | undefined {
  const vendor = join(CACHE_DIR, "node_modules", "@openai", `codex-${process.platform}-${process.arch}`, "vendor");
  if (!existsSync(vendor)) return undefined;
  for (const triple of readdirSync(vendor)) {
    const bin = join(vendor, triple, "bin", "codex");
    if (existsSync(bin)) return bin;
  }
  return undefined;
}

/**
 * `@openai/codex@{CODEX_VERSION}` installed from npm into a cache folder outside the repository
 * (once per machine), or why it cannot be had.
 */
export async function ensureCodex(): Promise<{ bin: string } | { unavailable: string }> {
  const found = findBinary();
  if (found) return { bin: found };
  await mkdir(CACHE_DIR, { recursive: true });
  try {
    await promisify(execFile)(
      "npm",
      ["install", "--prefix", CACHE_DIR, "--no-save", "--no-audit", "--no-fund", `@openai/codex@${CODEX_VERSION}`],
      { timeout: 240_000 },
    );
  } catch (err) {
    const { stderr } = err as { stderr?: unknown };
    const output = typeof stderr === "string" ? stderr : "";
    const reason = output.split("\n").find((l) => /^npm (error|ERR!)/.test(l)) ?? (err as Error).message.split("\n")[0];
    return { unavailable: `npm install @openai/codex@${CODEX_VERSION} failed: ${reason}` };
  }
  const bin = findBinary();
  return bin
    ? { bin }
    : { unavailable: `@openai/codex@${CODEX_VERSION} ships no binary for ${process.platform}-${process.arch}` };
}

/** One run's record: every request Codex made (its `input` and the `tools` it offered). */
export interface CodexRun {
  tools: Array<Record<string, unknown>>;
  /** Output items Codex sent back, by call id. */
  outputs: Map<string, Record<string, unknown>>;
  stderr: string;
}

/**
 * Runs `codex exec` once, offline: a temp CODEX_HOME whose provider is the mock Responses
 * server, which streams `rounds[n]` as the n-th response. No sandbox, no approvals (the
 * differential test compares texts, not sandboxes); goals off (Codex session state, not tools).
 */
export async function runCodex(
  bin: string,
  rounds: ReadonlyArray<ReadonlyArray<unknown>>,
  dirs: { home: string; workspace: string },
): Promise<CodexRun> {
  const mock = await startMockResponses(rounds);
  try {
    await copyFile(CATALOG, join(dirs.home, "model-catalog.json"));
    await writeFile(
      join(dirs.home, "config.toml"),
      [
        `model = "parity-model"`,
        `model_provider = "mock"`,
        `model_catalog_json = ${JSON.stringify(join(dirs.home, "model-catalog.json"))}`,
        `web_search = "disabled"`,
        `[model_providers.mock]`,
        `name = "mock"`,
        `base_url = ${JSON.stringify(mock.baseUrl)}`,
        `wire_api = "responses"`,
        `request_max_retries = 0`,
        `stream_max_retries = 0`,
        "",
      ].join("\n"),
    );
    const args = ["exec", "--strict-config", "--skip-git-repo-check", "--ephemeral"];
    args.push("--dangerously-bypass-approvals-and-sandbox", "--disable", "goals", "-C", dirs.workspace, "go");
    const child = spawn(bin, args, {
      cwd: dirs.workspace,
      // HOME too: login shells read ~/.bashrc, whose noise (pyenv, nvm ...) varies run to run.
      env: { ...process.env, HOME: dirs.home, CODEX_HOME: dirs.home, RUST_LOG: "error", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.stdout.resume();
    const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    clearTimeout(timer);
    if (code !== 0) throw new Error(`codex exec exited with ${code}:\n${stderr.slice(-4000)}`);
    const outputs = new Map<string, Record<string, unknown>>();
    for (const request of mock.requests.slice(1)) {
      for (const item of request.input) {
        if (typeof item.call_id === "string" && String(item.type).endsWith("_output")) outputs.set(item.call_id, item);
      }
    }
    return { tools: mock.requests[0]?.tools ?? [], outputs, stderr };
  } finally {
    await mock.close();
  }
}
