/**
 * Keeps the benchmark harness from rotting: runs `bench/run.ts --quick` (peers only when
 * bench/node_modules is already installed) and checks the results file it writes. It measures
 * the dist/ that `npm test` built rather than compiling the library again (17 s of CPU).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BenchResults } from "../../bench/lib/report.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const SCENARIOS = [
  "dispatch",
  "parallel",
  "scaling",
  "mixed",
  "mcp",
  "serveMcp",
  "exec",
  "cli",
  "policy",
  "journal",
  "peers",
  "memory",
];

function runQuick(out: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const tsx = path.join(ROOT, "node_modules", ".bin", "tsx");
    const child = spawn(tsx, ["bench/run.ts", "--quick", "--no-install", "--lib", "dist/index.js", "--out", out], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    child.on("error", reject);
    child.on("close", (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

describe("npm run bench -- --quick", () => {
  let dir: string;
  let results: BenchResults;
  let stdout: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "bench-quick-"));
    const out = path.join(dir, "quick.json");
    const run = await runQuick(out);
    stdout = run.stdout;
    expect(run.code, run.stderr.slice(-3000)).toBe(0);
    results = JSON.parse(await readFile(out, "utf8")) as BenchResults;
  });

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("records the machine, the mode and every scenario in order", () => {
    expect(results.schemaVersion).toBe(1);
    expect(results.mode).toBe("quick");
    expect(results.machine.cores).toBeGreaterThan(0);
    expect(results.machine.cpuModel).not.toBe("");
    expect(results.machine.node).toBe(process.version);
    expect(results.library).toBe(`given build (${path.join(ROOT, "dist", "index.js")})`);
    expect(results.scenarios.map((s) => s.id)).toEqual(SCENARIOS);
  });

  it("runs every core scenario, and the peers exactly when they are installed", () => {
    const peersInstalled = existsSync(path.join(ROOT, "bench", "node_modules"));
    for (const s of results.scenarios) {
      const expected = s.id === "peers" && !peersInstalled ? "skipped" : "ok";
      expect(s.status, `${s.id}: ${s.note ?? ""}`).toBe(expected);
    }
  });

  it("keeps every sample with its median and p95", () => {
    for (const s of results.scenarios.filter((x) => x.status === "ok")) {
      expect(s.variants.length, s.id).toBeGreaterThan(0);
      for (const v of s.variants) {
        expect(v.samples.length, `${s.id}/${v.id}`).toBeGreaterThan(0);
        expect(v.samples.every(Number.isFinite), `${s.id}/${v.id}`).toBe(true);
        expect(v.median).toBeGreaterThanOrEqual(v.min);
        expect(v.p95).toBeGreaterThanOrEqual(v.median);
        expect(v.max).toBeGreaterThanOrEqual(v.p95);
      }
    }
    const dispatch = results.scenarios.find((s) => s.id === "dispatch");
    expect(dispatch?.variants.map((v) => v.samples.length)).toEqual([3, 3, 3, 3]);
  });

  it("observes no ordering or exclusivity violation in the mixed schedule", () => {
    const mixed = results.scenarios.find((s) => s.id === "mixed");
    const violations = mixed?.metrics.find((m) => m.id === "violations");
    expect(violations?.value).toBe(0);
    expect(violations?.pass).toBe(true);
    expect(mixed?.metrics.find((m) => m.id === "optimalMs")?.value).toBeGreaterThan(0);
  });

  it("prints the table", () => {
    expect(stdout).toMatch(/\| scenario \| measure\s+\| median \| p95/);
    expect(stdout).toContain("| mixed ");
  });
});
