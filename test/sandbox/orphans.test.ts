/**
 * No process outlives the host (DESIGN section 12): a host process running a command is
 * SIGKILLed (no exit hook runs), then the test looks in /proc for what the command started,
 * found by unique `sleep` durations (pids inside bubblewrap's PID namespace mean nothing here).
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { processAlive } from "../../src/process/index.js";
import { createExecEnvironment, runCommand } from "../../src/sandbox/index.js";
import { killProcessesWith, processesWith, TSX, uniqueMarker } from "../cli/helpers.js";
import { describeSandbox, Scratch } from "./helpers.js";

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "orphanHost.ts");
const scratch = new Scratch();
let cwd: string;
const hosts: ChildProcess[] = [];
const markers: string[] = [];

beforeAll(async () => {
  cwd = await scratch.inTmp("orphans");
});
afterEach(async () => {
  for (const host of hosts.splice(0)) host.kill("SIGKILL");
  for (const marker of markers.splice(0)) await killProcessesWith(marker);
});
afterAll(() => scratch.cleanup());

/** Polls `probe` every 25 ms for up to 10 s (a loaded machine starts node + tsx slowly). */
async function until(probe: () => Promise<boolean>, what: () => string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await probe()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what()}`);
}

/** Starts the host and waits until both sleeps run; returns their host pids. */
async function startHost(mode: string, escape = false): Promise<{ host: ChildProcess; bg: number; fg: number }> {
  const bgMarker = uniqueMarker();
  let fgMarker = uniqueMarker();
  while (fgMarker === bgMarker) fgMarker = uniqueMarker();
  markers.push(bgMarker, fgMarker);
  const host = spawn(
    process.execPath,
    ["--import", TSX, FIXTURE, mode, bgMarker, fgMarker, ...(escape ? ["escape"] : [])],
    {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  hosts.push(host);
  let output = "";
  host.stdout.setEncoding("utf8").on("data", (c: string) => (output += c));
  host.stderr.setEncoding("utf8").on("data", (c: string) => (output += c));
  let bg: number[] = [];
  let fg: number[] = [];
  await until(
    async () => {
      // The host's own argv holds the markers too.
      bg = (await processesWith(bgMarker)).filter((pid) => pid !== host.pid);
      fg = (await processesWith(fgMarker)).filter((pid) => pid !== host.pid);
      return output.includes("ready") && bg.length === 1 && fg.length === 1;
    },
    () =>
      `both sleeps of the ${mode} host (its output: ${JSON.stringify(output)}, ${bgMarker}: ${bg.join()}, ${fgMarker}: ${fg.join()})`,
  );
  return { host, bg: bg[0]!, fg: fg[0]! };
}

async function sigkill(host: ChildProcess): Promise<void> {
  const gone = new Promise((r) => host.once("exit", r));
  host.kill("SIGKILL");
  await gone;
}

/** SIGKILLs a host running the command in `mode`; neither sleep may survive it. */
async function noSurvivors(mode: "workspace-write" | "danger-full-access", escape = false): Promise<void> {
  const { host, bg, fg } = await startHost(mode, escape);
  await sigkill(host);
  await until(
    async () => !processAlive(bg) && !processAlive(fg),
    () => "both sleeps to die with the host",
  );
  expect(processAlive(bg) || processAlive(fg)).toBe(false);
}

describeSandbox("no orphans in bubblewrap", () => {
  it("SIGKILLing the host ends the command and its background child (--die-with-parent)", () =>
    noSurvivors("workspace-write"));
});

describeSandbox("no orphans without a sandbox, where bubblewrap gives each command its own PID namespace (R3)", () => {
  it("SIGKILLing the host ends children that left the group (setsid) and the session (setpgid)", () =>
    noSurvivors("danger-full-access", true));

  it("the same in the sandbox", () => noSurvivors("workspace-write", true));

  it("a setsid child dies with its call, not only with the host", async () => {
    const marker = uniqueMarker();
    markers.push(marker);
    const env = await createExecEnvironment({ cwd, sandbox: { mode: "danger-full-access" } });
    const result = await runCommand(
      env,
      { argv: ["bash", "-c", `setsid sleep ${marker} & sleep 0.2; echo started`], cwd },
      { timeoutMs: 30_000 },
    );
    expect(result.exitCode).toBe(0);
    await until(
      async () => (await processesWith(marker)).length === 0,
      () => "the setsid sleep to end with its call",
    );
  });
});

describe("no orphans without a sandbox", () => {
  it("SIGKILLing the host ends the command and its background child (its PID namespace; without bubblewrap, the watchdog)", () =>
    noSurvivors("danger-full-access"));
});
