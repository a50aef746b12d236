/**
 * `npx tsx bench/charts.ts [RESULTS.json] [OUT_DIR]`: the pictures of docs/performance.md from a full bench run
 * (`npm run bench` runs it after writing bench/results/latest.json):
 *
 * - overhead.svg: per-call overhead of a 100-call no-op batch, ours beside the peers (log scale);
 * - scaling.svg: per-call cost against turn size, 100 to 100 000 calls (log-log), ours and bare
 *   `Promise.all`.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { escapeXml } from "../src/util/index.js";
import type { BenchResults, ScenarioResult } from "./lib/report.js";

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const W = 760;
const FONT = `font-family="sans-serif" font-size="12"`;
const OURS = "#3b82c4";
const OTHER = "#9aa5b1";
const BARE = "#e07b22";

const svg = (height: number, body: string[]): string =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${height}" viewBox="0 0 ${W} ${height}" ${FONT}>\n<rect width="${W}" height="${height}" fill="#fff"/>\n${body.join("\n")}\n</svg>\n`;

const text = (x: number, y: number, s: string, attrs = ""): string =>
  `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" ${attrs}>${escapeXml(s)}</text>`;

/** Powers of ten from below `lo` to above `hi`. */
function decades(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let p = Math.floor(Math.log10(lo)); p <= Math.ceil(Math.log10(hi)); p++) out.push(10 ** p);
  return out;
}

const fmt = (v: number): string => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
const unitLabel = (v: number): string => (v >= 1000 ? `${v / 1000}k` : String(v));

/** Horizontal bars on a log axis, one per row, the value printed at its end. */
export function overheadChart(
  rows: ReadonlyArray<{ label: string; value: number; ours: boolean }>,
  title: string,
): string {
  const left = 210;
  const plot = W - left - 70;
  const rowH = 30;
  const top = 48;
  const ticks = decades(Math.min(...rows.map((r) => r.value)), Math.max(...rows.map((r) => r.value)));
  const lo = Math.log10(ticks[0] as number);
  const hi = Math.log10(ticks[ticks.length - 1] as number);
  const x = (v: number): number => left + ((Math.log10(v) - lo) / (hi - lo)) * plot;
  const height = top + rows.length * rowH + 40;
  const body = [text(left, 24, title, `font-size="14" font-weight="bold"`)];
  for (const t of ticks) {
    body.push(
      `<line x1="${x(t).toFixed(1)}" y1="${top - 6}" x2="${x(t).toFixed(1)}" y2="${top + rows.length * rowH}" stroke="#e5e5e5"/>`,
      text(x(t), top + rows.length * rowH + 16, `${unitLabel(t)} µs`, `text-anchor="middle" fill="#666"`),
    );
  }
  rows.forEach((r, i) => {
    const y = top + i * rowH;
    const end = x(r.value);
    body.push(
      text(left - 8, y + 19, r.label, `text-anchor="end"${r.ours ? ` font-weight="bold"` : ""}`),
      `<rect x="${left}" y="${y + 5}" width="${Math.max(1, end - left).toFixed(1)}" height="${rowH - 10}" fill="${r.ours ? OURS : OTHER}"/>`,
      text(end + 6, y + 19, `${fmt(r.value)} µs`),
    );
  });
  return svg(height, body);
}

/** Lines on log-log axes: per-call cost (y) against turn size (x). */
export function scalingChart(
  series: ReadonlyArray<{ label: string; color: string; points: ReadonlyArray<[number, number]> }>,
  title: string,
): string {
  const left = 70;
  const top = 48;
  const plotW = W - left - 170;
  const plotH = 260;
  const xs = series.flatMap((s) => s.points.map((p) => p[0]));
  const ys = series.flatMap((s) => s.points.map((p) => p[1]));
  const xt = decades(Math.min(...xs), Math.max(...xs));
  const yt = decades(Math.min(...ys), Math.max(...ys));
  const lx = (v: number): number =>
    left +
    ((Math.log10(v) - Math.log10(xt[0] as number)) /
      (Math.log10(xt[xt.length - 1] as number) - Math.log10(xt[0] as number))) *
      plotW;
  const ly = (v: number): number =>
    top +
    plotH -
    ((Math.log10(v) - Math.log10(yt[0] as number)) /
      (Math.log10(yt[yt.length - 1] as number) - Math.log10(yt[0] as number))) *
      plotH;
  const body = [text(left, 24, title, `font-size="14" font-weight="bold"`)];
  for (const t of xt)
    body.push(
      `<line x1="${lx(t).toFixed(1)}" y1="${top}" x2="${lx(t).toFixed(1)}" y2="${top + plotH}" stroke="#e5e5e5"/>`,
      text(lx(t), top + plotH + 16, `${unitLabel(t)} calls`, `text-anchor="middle" fill="#666"`),
    );
  for (const t of yt)
    body.push(
      `<line x1="${left}" y1="${ly(t).toFixed(1)}" x2="${left + plotW}" y2="${ly(t).toFixed(1)}" stroke="#e5e5e5"/>`,
      text(left - 6, ly(t) + 4, `${t} µs`, `text-anchor="end" fill="#666"`),
    );
  series.forEach((s, i) => {
    const pts = s.points.map(([a, b]) => `${lx(a).toFixed(1)},${ly(b).toFixed(1)}`).join(" ");
    body.push(`<polyline points="${pts}" fill="none" stroke="${s.color}" stroke-width="2.5"/>`);
    for (const [a, b] of s.points) {
      body.push(
        `<circle cx="${lx(a).toFixed(1)}" cy="${ly(b).toFixed(1)}" r="3.5" fill="${s.color}"/>`,
        text(lx(a) + 5, ly(b) - 7, fmt(b), `fill="${s.color}" font-size="11"`),
      );
    }
    const legendY = top + 10 + i * 20;
    body.push(
      `<rect x="${left + plotW + 16}" y="${legendY - 9}" width="12" height="12" fill="${s.color}"/>`,
      text(left + plotW + 32, legendY + 1, s.label),
    );
  });
  return svg(top + plotH + 30, body);
}

function scenario(results: BenchResults, id: string): ScenarioResult | undefined {
  return results.scenarios.find((s) => s.id === id && s.status === "ok");
}

/** Writes the charts the results have data for; returns the files written. */
export async function writeCharts(results: BenchResults, outDir: string): Promise<string[]> {
  const written: string[] = [];
  const peers = scenario(results, "peers");
  if (peers) {
    const rows = peers.metrics
      .filter((m) => m.id.endsWith(".noop.overheadUs"))
      .map((m) => ({
        label: m.label.replace(/ overhead, noop$/, ""),
        value: m.value,
        ours: m.id.startsWith("ours."),
      }))
      .sort((a, b) => a.value - b.value);
    const file = path.join(outDir, "overhead.svg");
    await writeFile(file, overheadChart(rows, "Overhead per call, 100 no-op calls in one batch (median, log scale)"));
    written.push(file);
  }
  const scaling = scenario(results, "scaling");
  if (scaling) {
    const points = (prefix: string): Array<[number, number]> =>
      scaling.variants
        .filter((v) => new RegExp(`^${prefix}\\d+$`).test(v.id))
        .map((v): [number, number] => [Number(v.id.slice(prefix.length)), v.median])
        .sort((a, b) => a[0] - b[0]);
    const file = path.join(outDir, "scaling.svg");
    await writeFile(
      file,
      scalingChart(
        [
          { label: "toolcall-runtime", color: OURS, points: points("ours") },
          { label: "bare Promise.all", color: BARE, points: points("bare") },
        ],
        "Cost per call against turn size (no-op calls, median, log-log)",
      ),
    );
    written.push(file);
  }
  return written;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const input = process.argv[2] ?? path.join(BENCH_DIR, "results", "latest.json");
  const out = process.argv[3] ?? path.dirname(input);
  const results = JSON.parse(await readFile(input, "utf8")) as BenchResults;
  for (const file of await writeCharts(results, out))
    process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
}
