/** The published table of docs/performance.md is rewritten from a results file, never by hand. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { withResultsTable, type BenchResults } from "../../bench/lib/report.js";

const results: BenchResults = {
  schemaVersion: 1,
  generatedAt: "2026-11-27T10:00:00.000Z",
  command: "npm run bench",
  mode: "full",
  machine: {
    cpuModel: "AMD EPYC",
    cores: 2,
    node: "v20.20.2",
    platform: "linux",
    arch: "x64",
    totalMemoryGiB: 23.5,
    load: { start: [0.51, 1.2, 2], end: [1.75, 1.5, 2.1] },
  },
  library: "compiled build (tsc)",
  settings: { warmup: 2, reps: 10 },
  scenarios: [
    {
      id: "dispatch",
      title: "Dispatch",
      status: "ok",
      durationMs: 1,
      variants: [{ id: "bare", label: "bare", unit: "µs/call", samples: [1, 2], median: 1.5, p95: 2, min: 1, max: 2 }],
      metrics: [
        {
          id: "ratio",
          label: "ratio",
          value: 1.4,
          unit: "×",
          target: { op: "<=", value: 1.2, description: "within 1.2" },
          pass: false,
        },
      ],
    },
  ],
};

describe("withResultsTable", () => {
  it("replaces what is between the markers with the run's header, load, table and missed targets", () => {
    const doc = [
      "# Performance",
      "<!-- bench:latest (written by npm run bench from bench/results/latest.json) -->",
      "an old table",
      "<!-- /bench:latest -->",
      "after",
    ].join("\n");
    const out = withResultsTable(doc, results)!;
    expect(out).not.toContain("an old table");
    expect(out.startsWith("# Performance\n<!-- bench:latest")).toBe(true);
    expect(out.endsWith("<!-- /bench:latest -->\nafter")).toBe(true);
    expect(out).toContain("2026-11-27: AMD EPYC, 2 cores");
    expect(out).toContain("load average 0.5 / 1.2 / 2.0 at the start, 1.8 / 1.5 / 2.1 at the end");
    expect(out).toMatch(/\| dispatch \| bare +\| 1\.50 +\| 2 +\| µs\/call/);
    expect(out).toContain("- missed: dispatch: within 1.2 (1.40 ×, target <= 1.20)");
    // Twice gives the same: the markers survive.
    expect(withResultsTable(out, results)).toBe(out);
  });

  it("leaves a document without the markers alone, and docs/performance.md has them", () => {
    expect(withResultsTable("# no markers", results)).toBeUndefined();
    const doc = readFileSync(new URL("../../docs/performance.md", import.meta.url), "utf8");
    expect(withResultsTable(doc, results)).toBeDefined();
  });
});
