/**
 * Security review S8: a sandboxed command rewrote the watchdog's kill list (kept in the host's
 * temporary directory, a writable root), and the host's end SIGKILLed a process group of the
 * command's choosing. Here the list lives in the watchdog's memory: an unrelated `setsid sleep`
 * survives the host's exit and its SIGKILL, while the group the host did list still dies.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { processAlive } from "../../src/process/index.js";
import { killProcessesWith, processesWith, TSX, uniqueMarker } from "../cli/helpers.js";
import { describeSandbox, Scratch } from "./helpers.js";

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "watchdogAttackHost.ts");
const scratch = new Scratch();
let cwd: string;
let hostTmp: string;
const started: ChildProcess[] = [];
const markers: string[] = [];

beforeAll(async () => {
  cwd = await scratch.outside("s8-ws");
  hostTmp = await scratch.outside("s8-tmp");
});
afterEach(async () => {
  for (const child of started.splice(0)) child.kill("SIGKILL");
  for (const marker of markers.splice(0)) await killProcessesWith(marker);
});
afterAll(() => scratch.cleanup());

async function until(probe: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 1_200; i++) {
    if (await probe()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function attack(end: "exit" | "sigkill"): Promise<void> {
  const victimMarker = uniqueMarker();
  const guardedMarker = uniqueMarker();
  markers.push(victimMarker, guardedMarker);
  // Any group of the user's: its own session (detached: setsid in the child), unknown to the
  // host. Not through the `setsid` program: a group leader already, it forks and its first
  // process, which a poll of /proc may catch, exits.
  const victim = spawn("sleep", [victimMarker], { detached: true, stdio: "ignore" });
  started.push(victim);
  await until(async () => (await processesWith(victimMarker)).length === 1, "the victim to start");
  const victimPid = victim.pid;
  const host = spawn(
    process.execPath,
    ["--import", TSX, FIXTURE, end === "exit" ? "exit" : "wait", String(victimPid), guardedMarker],
    { cwd, env: { ...process.env, TMPDIR: hostTmp }, stdio: ["ignore", "pipe", "pipe"] },
  );
  started.push(host);
  // Listened for at once: in "exit" mode the host may end before the test looks.
  const exited = once(host, "exit");
  let output = "";
  host.stdout.setEncoding("utf8").on("data", (c: string) => (output += c));
  host.stderr.setEncoding("utf8").on("data", (c: string) => (output += c));
  await until(async () => output.includes("ready"), `the host's attack (output: ${output})`);
  expect(output).toContain("attack done");
  expect(output).not.toContain("wrote");
  const guardedPid = Number(/guarded (\d+)/.exec(output)?.[1]);
  expect(guardedPid).toBeGreaterThan(1);
  if (end === "sigkill") host.kill("SIGKILL");
  await exited;
  // The watchdog did run: the group the host listed is gone ...
  await until(async () => !processAlive(guardedPid), "the host's own group to die (by its exit hook or its watchdog)");
  // ... and the victim lives on (given the watchdog a moment more to do anything else).
  await new Promise((r) => setTimeout(r, 500));
  expect(processAlive(victimPid!)).toBe(true);
}

describeSandbox("the watchdog keeps no state a sandboxed command can write (S8)", () => {
  // Generous: a host under tsx on a loaded machine takes seconds to start.
  it("an unrelated setsid sleep survives the host's normal exit", () => attack("exit"), 90_000);
  it("an unrelated setsid sleep survives the host's SIGKILL", () => attack("sigkill"), 90_000);
});
