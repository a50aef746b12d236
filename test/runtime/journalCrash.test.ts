// Durable turns (DESIGN section 17), the crash test: a child process runs 300 seeded
// turns of mixed calls through a FileJournal and is SIGKILLed at random points at least 200
// times; each turn is resumed in a new process until done.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";
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
const TURNS = Number(process.env["JOURNAL_CRASH_TURNS"] ?? 300);
const KILLS = Number(process.env["JOURNAL_CRASH_KILLS"] ?? 200);
const dir = mkdtempSync(path.join(os.tmpdir(), "journal-crash-"));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

type Line =
  | { ready: true }
  | { t: number; out: string; text: string }
  | { t: number; drain: [string, string][] }
  | { t: number; done: true };

it("every accepted call has exactly one output in call order, no mutating call runs twice, and what was handed out stays", async () => {
  const seed = Number(process.env["JOURNAL_CRASH_SEED"] ?? Date.now() % 1_000_000);
  const rnd = random(seed);
  const seen = new Map<string, string>();
  const finals = new Map<number, [string, string][]>();
  const mismatches: string[] = [];
  const remember = (t: number, callId: string, text: string): void => {
    const key = `${String(t)}/${callId}`;
    const before = seen.get(key);
    if (before !== undefined && before !== text)
      mismatches.push(`${key}: ${JSON.stringify(before)} then ${JSON.stringify(text)}`);
    if (before === undefined) seen.set(key, text);
  };
  let next = 0;
  let kills = 0;
  let runs = 0;
  // More turns while the kills are too few: the issue asks for both.
  let total = TURNS;
  while (next < total || kills < KILLS) {
    if (next >= total) total += 20;
    runs++;
    const child = spawn(process.execPath, [CHILD, dir, String(next), String(total)], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const killAt = kills < KILLS ? rnd() * 250 : undefined;
    let timer: NodeJS.Timeout | undefined;
    const lines = createInterface({ input: child.stdout });
    lines.on("line", (raw) => {
      const line = JSON.parse(raw) as Line;
      if ("ready" in line) {
        if (killAt !== undefined) timer = setTimeout(() => child.kill("SIGKILL"), killAt);
      } else if ("out" in line) remember(line.t, line.out, line.text);
      else if ("drain" in line) {
        for (const [callId, text] of line.drain) remember(line.t, callId, text);
        finals.set(line.t, line.drain);
      } else if ("done" in line) next = Math.max(next, line.t + 1);
    });
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
      child.on("close", (c, s) => {
        resolve([c, s]);
      });
    });
    clearTimeout(timer);
    if (signal === "SIGKILL") kills++;
    else expect(code, `child failed (seed ${String(seed)}): ${stderr}`).toBe(0);
  }
  expect(kills, `seed ${String(seed)}, ${String(runs)} runs`).toBeGreaterThanOrEqual(KILLS);
  expect(mismatches, `seed ${String(seed)}`).toEqual([]);

  let interrupted = 0;
  for (let t = 0; t < total; t++) {
    const calls = plan(t);
    const final = finals.get(t);
    expect(
      final?.map(([id]) => id),
      `turn ${String(t)}: one output per call, in call order`,
    ).toEqual(calls.map((c) => c.callId));
    const effectsFile = path.join(dir, `effects-${String(t)}.txt`);
    const effects = existsSync(effectsFile) ? readFileSync(effectsFile, "utf8").split("\n").filter(Boolean) : [];
    expect(new Set(effects).size, `turn ${String(t)}: a side effect twice: ${effects.join(",")}`).toBe(effects.length);
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
  // The kills must have landed inside calls: otherwise nothing here was tested.
  expect(interrupted, `seed ${String(seed)}`).toBeGreaterThan(0);
});
