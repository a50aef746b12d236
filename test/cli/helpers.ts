import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { expect, it } from "vitest";
import { WAIT_CEILING_MS } from "../support/setup.js";
import { ConfigError, loadCliConfig, type CliConfig } from "../../src/cli/config.js";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/**
 * The built command (`npm test` builds it first: scripts/pretest.mjs). Tests run what users run,
 * and a child that loads one bundled file starts in a fraction of the time tsx takes from
 * source, which is what kept CLI tests under a fixed timeout on a loaded machine.
 */
export const MAIN = path.join(ROOT, "dist/bin/toolcall.js");
/** The demo MCP server, built beside the command. */
export const DEMO_SERVER = path.join(ROOT, "dist/bin/demo/server.js");
if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` (npm test builds it first)`);
/** By URL: a bare `--import tsx` would resolve against the child's (temp) working directory. */
export const TSX = pathToFileURL(path.join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Starts the built CLI in a child process. */
export function spawnCli(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): ChildProcess {
  return spawn(process.execPath, [MAIN, ...args], {
    cwd: opts.cwd ?? ROOT,
    env: { ...process.env, ...opts.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
}

export function collect(child: ChildProcess): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (c: string) => (stdout += c));
  child.stderr?.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      resolve({ code, signal, stdout, stderr });
    });
  });
}

export async function runCli(
  args: string[],
  opts: { cwd?: string; input?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult> {
  const child = spawnCli(args, opts);
  const done = collect(child);
  child.stdin?.end(opts.input ?? "");
  return done;
}

export function jsonLines(text: string): Array<Record<string, unknown>> {
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

export async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "toolcall-cli-"));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Live processes with `marker` as one of their arguments (zombies have empty cmdlines). */
export async function processesWith(marker: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (cmdline.split("\0").includes(marker)) pids.push(Number(entry));
  }
  return pids;
}

/** SIGKILLs every live process with `marker` among its arguments (a test's clean-up). */
export async function killProcessesWith(marker: string): Promise<void> {
  for (const pid of await processesWith(marker)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
}

let markers = 0;
/**
 * A unique `sleep` duration, to find that process in /proc: random digits, this process's id
 * and a count, so two test files (whose clean-ups kill by marker) never share one.
 */
export const uniqueMarker = (): string =>
  `${(Math.random() * 100 + 50).toFixed(4)}${String(process.pid).padStart(7, "0")}${String(++markers).padStart(4, "0")}`;

/** Polls `probe` until it holds; the ceiling (as test/support/setup.ts's) only stops a hung test. */
export async function waitFor(probe: () => Promise<boolean>, what: string): Promise<void> {
  const until = Date.now() + WAIT_CEILING_MS;
  while (Date.now() < until) {
    if (await probe()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Writes `text` as the config `name` in `dir` (subfolders made) and loads it as the CLI would. */
export async function loadConfigText(dir: string, name: string, text: string): Promise<CliConfig> {
  await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
  await writeFile(path.join(dir, name), text);
  return loadCliConfig({ dir, configPath: name });
}

/** One test per bad config: it is refused with a ConfigError naming the file and the key. */
export function rejectsEachConfig(bad: ReadonlyArray<[string, string, string, RegExp]>): void {
  for (const [name, file, text, message] of bad) {
    it(`rejects ${name}, naming the file and the key`, async () => {
      await withTempDir(async (dir) => {
        const err = await loadConfigText(dir, file, text).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ConfigError);
        expect((err as Error).message).toMatch(message);
        expect((err as Error).message.startsWith(path.join(dir, file))).toBe(true);
      });
    });
  }
}
