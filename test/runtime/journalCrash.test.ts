// Durable turns (DESIGN section 17), the crash test: child processes run 300 seeded
// turns of mixed calls through FileJournals and are SIGKILLed at random points at least 200
// times; each turn is resumed in a new process until done.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { build } from "esbuild";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
// @ts-expect-error: a plain ES module shared with the child
import { random as seeded, turnPlan } from "../fixtures/journal/plan.mjs";

interface PlannedCall {
  callId: string;
  tool: string;
  mutating: boolean;
  idempotent: boolean;
  approve: "allow" | "deny";
}
const plan = turnPlan as (k: number) => PlannedCall[];
const random = seeded as (seed: number) => () => number;

const CHILD = fileURLToPath(new URL("../fixtures/journal/crashChild.mjs", import.meta.url));
const REPO = fileURLToPath(new URL("../..", import.meta.url));
const TURNS = Number(process.env["JOURNAL_CRASH_TURNS"] ?? 300);
const KILLS = Number(process.env["JOURNAL_CRASH_KILLS"] ?? 200);
/**
 * Independent agents, each with a journal of its own and a share of the turns and kills: the
 * same 200 kills, but a lane's child waiting for its kill or starting up does not hold up the
 * others (the test took 3 minutes alone, 9 on a loaded machine).
 */
const LANES = 4;
const root = mkdtempSync(path.join(os.tmpdir(), "journal-crash-"));
/**
 * The child loads the built library (dist/) bundled into one file, made once here: loading
 * dist/'s ~600 modules one by one cost 0.6 s of CPU in each of the ~220 children, more than the
 * turns they run. It lies under node_modules/.cache so the packages it requires lazily resolve.
 */
mkdirSync(path.join(REPO, "node_modules", ".cache"), { recursive: true });
const LIB_DIR = mkdtempSync(path.join(REPO, "node_modules", ".cache", "journal-crash-"));
const LIB = path.join(LIB_DIR, "toolcall-runtime.mjs");
beforeAll(async () => {
  await build({
    entryPoints: [path.join(REPO, "dist", "index.js")],
    outfile: LIB,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // Bundled CommonJS packages call require(); tree-sitter finds its .wasm beside its module.
    banner: {
      js: 'import { createRequire as __crashRequire } from "node:module"; const require = __crashRequire(import.meta.url);',
    },
    external: ["web-tree-sitter"],
    logLevel: "warning",
  });
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(LIB_DIR, { recursive: true, force: true });
});

type Line =
  | { ready: true }
  | { t: number; running: string }
  | { t: number; out: string; text: string }
  | { t: number; drain: [string, string][] }
  | { t: number; done: true };

interface Lane {
  dir: string;
  /** The lane's turns: plan indices first..end-1 (end grows while its kills are too few). */
  first: number;
  end: number;
  kills: number;
  runs: number;
  finals: Map<number, [string, string][]>;
}

/**
 * Runs one lane's turns to the end, its child SIGKILLed `kills` times at random points and
 * started again each time; `remember` hears every output it is handed.
 */
async function runLane(
  lane: Lane,
  killsWanted: number,
  rnd: () => number,
  remember: (t: number, callId: string, text: string) => void,
  seed: number,
): Promise<void> {
  let next = lane.first;
  while (next < lane.end || lane.kills < killsWanted) {
    if (next >= lane.end) lane.end += 20;
    lane.runs++;
    const child = spawn(process.execPath, [CHILD, lane.dir, String(next), String(lane.end), LIB], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    // Half the kills at a random time after start-up, half a moment after a mutating call began:
    // on a machine shared with CPU hogs, 250 ms may not reach the first call at all.
    const killing = lane.kills < killsWanted;
    const inCall = rnd() < 0.5;
    const killAt = rnd() * (inCall ? 10 : 250);
    let timer: NodeJS.Timeout | undefined;
    const killIn = (ms: number): void => {
      if (killing && timer === undefined) timer = setTimeout(() => child.kill("SIGKILL"), ms);
    };
    const lines = createInterface({ input: child.stdout });
    lines.on("line", (raw) => {
      const line = JSON.parse(raw) as Line;
      if ("ready" in line) {
        if (!inCall) killIn(killAt);
      } else if ("running" in line) {
        if (inCall) killIn(killAt);
      } else if ("out" in line) remember(line.t, line.out, line.text);
      else if ("drain" in line) {
        for (const [callId, text] of line.drain) remember(line.t, callId, text);
        lane.finals.set(line.t, line.drain);
      } else if ("done" in line) next = Math.max(next, line.t + 1);
    });
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
      child.on("close", (c, s) => {
        resolve([c, s]);
      });
    });
    clearTimeout(timer);
    if (signal === "SIGKILL") lane.kills++;
    else expect(code, `child failed (seed ${String(seed)}): ${stderr}`).toBe(0);
  }
}

it("every accepted call has exactly one output in call order, no mutating call runs twice, and what was handed out stays", async () => {
  const seed = Number(process.env["JOURNAL_CRASH_SEED"] ?? Date.now() % 1_000_000);
  const seen = new Map<string, string>();
  const mismatches: string[] = [];
  const remember = (t: number, callId: string, text: string): void => {
    const key = `${String(t)}/${callId}`;
    const before = seen.get(key);
    if (before !== undefined && before !== text)
      mismatches.push(`${key}: ${JSON.stringify(before)} then ${JSON.stringify(text)}`);
    if (before === undefined) seen.set(key, text);
  };
  // Each lane's turns are plan indices of its own (the plans differ), far apart so a lane that
  // grows its range to get its kills never reaches the next lane's.
  const share = Math.ceil(TURNS / LANES);
  const lanes: Lane[] = Array.from({ length: LANES }, (_, i) => {
    const dir = path.join(root, `lane-${String(i)}`);
    mkdirSync(dir);
    return { dir, first: i * 100_000, end: i * 100_000 + share, kills: 0, runs: 0, finals: new Map() };
  });
  await Promise.all(lanes.map((lane, i) => runLane(lane, Math.ceil(KILLS / LANES), random(seed + i), remember, seed)));
  const kills = lanes.reduce((n, l) => n + l.kills, 0);
  const runs = lanes.reduce((n, l) => n + l.runs, 0);
  expect(kills, `seed ${String(seed)}, ${String(runs)} runs`).toBeGreaterThanOrEqual(KILLS);
  expect(mismatches, `seed ${String(seed)}`).toEqual([]);

  let interrupted = 0;
  for (const lane of lanes) {
    for (let t = lane.first; t < lane.end; t++) {
      const calls = plan(t);
      const final = lane.finals.get(t);
      expect(
        final?.map(([id]) => id),
        `turn ${String(t)}: one output per call, in call order`,
      ).toEqual(calls.map((c) => c.callId));
      const effectsFile = path.join(lane.dir, `effects-${String(t)}.txt`);
      const effects = existsSync(effectsFile) ? readFileSync(effectsFile, "utf8").split("\n").filter(Boolean) : [];
      expect(new Set(effects).size, `turn ${String(t)}: a side effect twice: ${effects.join(",")}`).toBe(
        effects.length,
      );
      for (const [callId, text] of final ?? []) {
        const call = calls.find((c) => c.callId === callId)!;
        if (text.startsWith("interrupted:")) {
          interrupted++;
          expect(call.mutating && !call.idempotent, `${callId} (${call.tool}) answered interrupted`).toBe(true);
          expect(text).toBe(
            `interrupted: ${call.tool} was running when the agent stopped; it may or may not have taken effect. Check before running it again.`,
          );
        } else if (call.tool === "append_line" || (call.tool === "approve_me" && call.approve === "allow")) {
          expect(text, callId).toBe(`appended ${callId}`);
          expect(effects, `${callId} succeeded, so its effect is there`).toContain(callId);
        }
        if (call.tool === "approve_me" && call.approve === "deny") expect(effects).not.toContain(callId);
      }
    }
  }
  // The kills must have landed inside calls: otherwise nothing here was tested.
  expect(interrupted, `seed ${String(seed)}`).toBeGreaterThan(0);
});
