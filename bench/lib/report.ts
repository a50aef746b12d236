/** The shape of `bench/results/latest.json` and the table printed from it. */
import type { Summary } from "./stats.js";

export interface VariantResult extends Summary {
  id: string;
  label: string;
  unit: string;
  /** Every measured sample (warm-up excluded), in the order taken. */
  samples: number[];
}

export interface Target {
  op: "<=" | ">=" | "==";
  value: number;
  description: string;
}

/** A number derived from the variants (ratio, overhead, violation count), maybe with a target. */
export interface Metric {
  id: string;
  label: string;
  value: number;
  unit: string;
  target?: Target;
  pass?: boolean;
}

export type ScenarioStatus = "ok" | "skipped" | "error";

export interface ScenarioResult {
  id: string;
  title: string;
  status: ScenarioStatus;
  /** Why a scenario was skipped or failed, or what to keep in mind reading it. */
  note?: string;
  durationMs: number;
  variants: VariantResult[];
  metrics: Metric[];
}

export interface Machine {
  cpuModel: string;
  cores: number;
  node: string;
  platform: string;
  arch: string;
  totalMemoryGiB: number;
  /** The load average (1, 5 and 15 minutes) as the run started and as it ended: how busy the machine was. */
  load?: { start: number[]; end: number[] };
}

export interface BenchResults {
  schemaVersion: 1;
  generatedAt: string;
  command: string;
  mode: "full" | "quick";
  machine: Machine;
  /** What was measured: the tsc build users install, or the source through tsx. */
  library: string;
  settings: { warmup: number; reps: number };
  scenarios: ScenarioResult[];
}

export function metric(id: string, label: string, value: number, unit: string, target?: Target): Metric {
  if (!target) return { id, label, value, unit };
  const pass =
    target.op === "<=" ? value <= target.value : target.op === ">=" ? value >= target.value : value === target.value;
  return { id, label, value, unit, target, pass };
}

function fmt(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  if (abs === 0 || Number.isInteger(value)) return String(value);
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  return value.toFixed(3);
}

/** One markdown table: a row per variant (median, p95) and per derived metric (value, target). */
export function renderTable(results: BenchResults): string {
  const rows: string[][] = [["scenario", "measure", "median", "p95", "unit", "target"]];
  for (const s of results.scenarios) {
    if (s.status !== "ok") {
      rows.push([s.id, `${s.status}: ${s.note ?? ""}`, "", "", "", ""]);
      continue;
    }
    for (const v of s.variants) rows.push([s.id, v.label, fmt(v.median), fmt(v.p95), v.unit, ""]);
    for (const m of s.metrics) {
      const target = m.target ? `${m.target.op} ${fmt(m.target.value)} ${m.pass ? "✓" : "✗"}` : "";
      rows.push([s.id, m.label, fmt(m.value), "", m.unit, target]);
    }
  }
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((r) => (r[col] ?? "").length)));
  const line = (r: string[]): string => `| ${r.map((cell, col) => cell.padEnd(widths[col] ?? 0)).join(" | ")} |`;
  const rule = `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`;
  return [line(rows[0]!), rule, ...rows.slice(1).map(line)].join("\n");
}

const loads = (l: number[]): string => l.map((x) => x.toFixed(1)).join(" / ");

export function renderHeader(results: BenchResults): string {
  const m = results.machine;
  const load = m.load ? `load average ${loads(m.load.start)} at the start, ${loads(m.load.end)} at the end; ` : "";
  return (
    `${m.cpuModel}, ${m.cores} cores, Node ${m.node}, ${m.platform}/${m.arch}; ${load}` +
    `${results.mode} mode, ${results.settings.reps} repetitions after ${results.settings.warmup} warm-up, interleaved; ` +
    `library: ${results.library}`
  );
}

/** Targets that were checked, with their verdict. */
export function targetSummary(results: BenchResults): { held: string[]; missed: string[] } {
  const held: string[] = [];
  const missed: string[] = [];
  for (const s of results.scenarios) {
    for (const m of s.metrics) {
      if (!m.target) continue;
      const text = `${s.id}: ${m.target.description} (${fmt(m.value)} ${m.unit}, target ${m.target.op} ${fmt(m.target.value)})`;
      (m.pass ? held : missed).push(text);
    }
  }
  return { held, missed };
}

/** The scenarios' notes (settings, peer versions, why something was skipped), one line each. */
export function renderNotes(results: BenchResults): string {
  return results.scenarios
    .filter((s) => s.note)
    .map((s) => `- ${s.id}: ${s.note}`)
    .join("\n");
}

const DOC_START = "<!-- bench:latest (written by npm run bench from bench/results/latest.json) -->";
const DOC_END = "<!-- /bench:latest -->";

/**
 * `doc` with the part between its bench markers replaced by the run's header, table and
 * targets: the published numbers are always those of the last full run, never typed by hand.
 * Undefined when `doc` has no markers.
 */
export function withResultsTable(doc: string, results: BenchResults): string | undefined {
  const start = doc.indexOf(DOC_START);
  const end = doc.indexOf(DOC_END);
  if (start < 0 || end < start) return undefined;
  const { held, missed } = targetSummary(results);
  const body = [
    `${results.generatedAt.slice(0, 10)}: ${renderHeader(results)}.`,
    "",
    renderTable(results),
    "",
    `Targets held: ${held.length}, missed: ${missed.length}.${missed.map((m) => `\n- missed: ${m}`).join("")}`,
  ].join("\n");
  return `${doc.slice(0, start + DOC_START.length)}\n\n${body}\n\n${doc.slice(end)}`;
}
