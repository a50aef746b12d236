/**
 * A turn's calls on one time axis: when each was submitted, when its handler began and ended,
 * and whether it ran alone (exclusive). Drawn as an SVG Gantt chart (`toolcall exec --timeline
 * FILE.svg`) and as text for a terminal (the demo's last picture).
 */
import type { ToolEvent } from "../turn/index.js";
import { escapeXml, now } from "../util/index.js";

export interface TimelineCall {
  callId: string;
  label: string;
  exclusive: boolean;
  /** `now()` readings. */
  submittedAt: number;
  beganAt?: number;
  endedAt?: number;
  failed?: boolean;
}

/** Records a turn's calls from its submissions and its `tool_call_begin` / `tool_call_end` events. */
export class CallTimeline {
  readonly calls: TimelineCall[] = [];
  private readonly byId = new Map<string, TimelineCall>();

  /** False (nothing recorded) when the id is already on the timeline. */
  add(callId: string, label: string, { exclusive }: { exclusive: boolean }): boolean {
    if (this.byId.has(callId)) return false;
    const call: TimelineCall = { callId, label, exclusive, submittedAt: now() };
    this.calls.push(call);
    this.byId.set(callId, call);
    return true;
  }

  /** A call the runtime did not accept after all (a duplicate id). */
  remove(callId: string): void {
    const call = this.byId.get(callId);
    if (!call) return;
    this.byId.delete(callId);
    this.calls.splice(this.calls.lastIndexOf(call), 1);
  }

  onEvent(event: ToolEvent): void {
    const call = this.byId.get(event.callId);
    if (!call) return;
    if (event.type === "tool_call_begin") call.beganAt = now();
    else if (event.type === "tool_call_end") {
      call.endedAt = now();
      call.failed = !event.success;
    }
  }
}

/** Calls overlapping an exclusive call's run (the runtime's invariant 2 says none may). */
export function exclusiveOverlaps(calls: readonly TimelineCall[]): string[] {
  const problems: string[] = [];
  for (const mine of calls) {
    if (!mine.exclusive || mine.beganAt === undefined) continue;
    const mineEnd = mine.endedAt ?? Infinity;
    for (const other of calls) {
      if (other === mine || other.beganAt === undefined) continue;
      if (other.beganAt < mineEnd && mine.beganAt < (other.endedAt ?? Infinity))
        problems.push(`${mine.callId} overlapped ${other.callId}`);
    }
  }
  return problems;
}

/** Up to this many calls get a lane each; more are packed into lanes by overlap. */
const LANE_PER_CALL_MAX = 40;

/**
 * Each call's lane: its own up to LANE_PER_CALL_MAX calls, else the first lane whose last call
 * ended before this one was submitted (greedy interval partitioning: as few lanes as overlap needs).
 */
function lanes(calls: readonly TimelineCall[]): number[] {
  if (calls.length <= LANE_PER_CALL_MAX) return calls.map((_, i) => i);
  const laneEnds: number[] = [];
  return calls.map((c) => {
    const end = c.endedAt ?? c.beganAt ?? c.submittedAt;
    let lane = laneEnds.findIndex((e) => e <= c.submittedAt);
    if (lane < 0) lane = laneEnds.push(end) - 1;
    else laneEnds[lane] = end;
    return lane;
  });
}

const COLORS = { waiting: "#d9dde3", shared: "#3b82c4", exclusive: "#e07b22", failed: "#c0392b", text: "#222" };

/** A tick step (1, 2 or 5 × a power of ten) giving about `n` ticks over `span` ms. */
function tickStep(span: number, n: number): number {
  const raw = span / n;
  const pow = 10 ** Math.floor(Math.log10(raw));
  return ([1, 2, 5, 10].find((m) => m * pow >= raw) ?? 10) * pow;
}

const msLabel = (ms: number): string => (ms >= 1000 ? `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s` : `${ms} ms`);

/**
 * The calls as an SVG Gantt chart: one lane per call (packed by overlap past 40 calls), grey
 * while submitted but not started (queued, waiting for the lock or the gate), blue while a
 * shared call runs, orange while an exclusive one runs, a red outline when it failed (around
 * the grey when it was refused before it ran).
 */
export function timelineSvg(calls: readonly TimelineCall[], title = "tool calls"): string {
  const start = Math.min(...calls.map((c) => c.submittedAt), now());
  const end = Math.max(start + 1, ...calls.map((c) => c.endedAt ?? c.beganAt ?? c.submittedAt));
  const lane = lanes(calls);
  const laneCount = Math.max(1, ...lane.map((l) => l + 1));
  const labelled = calls.length <= LANE_PER_CALL_MAX;
  const left = labelled ? 230 : 40;
  const width = 960;
  const plot = width - left - 20;
  const rowH = labelled ? 22 : Math.max(3, Math.min(12, 600 / laneCount));
  const top = 44;
  const height = top + laneCount * rowH + 50;
  const x = (t: number): number => left + ((t - start) / (end - start)) * plot;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${left}" y="20" font-size="14" font-weight="bold" fill="${COLORS.text}">${escapeXml(title)}: ${calls.length} calls, ${msLabel(Math.round(end - start))}</text>`,
  ];
  const step = tickStep(end - start, 8);
  for (let t = 0; t <= end - start + 1e-9; t += step) {
    const tx = x(start + t).toFixed(1);
    parts.push(
      `<line x1="${tx}" y1="${top - 6}" x2="${tx}" y2="${top + laneCount * rowH}" stroke="#eee"/>`,
      `<text x="${tx}" y="${top + laneCount * rowH + 16}" text-anchor="middle" fill="#666">${msLabel(Math.round(t * 1000) / 1000)}</text>`,
    );
  }
  calls.forEach((c, i) => {
    const y = top + (lane[i] ?? 0) * rowH;
    const h = Math.max(2, rowH - 6);
    const began = c.beganAt ?? c.endedAt;
    if (labelled)
      parts.push(
        `<text x="${left - 8}" y="${(y + rowH / 2 + 4).toFixed(1)}" text-anchor="end" fill="${COLORS.text}">${escapeXml(c.label.length > 34 ? `${c.label.slice(0, 33)}…` : c.label)}</text>`,
      );
    const waitEnd = began ?? end;
    // A call refused before it ran (policy, aborted while queued) ends failed without starting.
    const refused = c.beganAt === undefined && c.failed === true;
    parts.push(
      `<rect x="${x(c.submittedAt).toFixed(1)}" y="${(y + 3).toFixed(1)}" width="${Math.max(1, x(waitEnd) - x(c.submittedAt)).toFixed(1)}" height="${h.toFixed(1)}" fill="${COLORS.waiting}"${refused ? ` stroke="${COLORS.failed}" stroke-width="2"` : ""}><title>${escapeXml(c.callId)} waiting ${(waitEnd - c.submittedAt).toFixed(1)} ms${refused ? ", refused" : ""}</title></rect>`,
    );
    if (c.beganAt !== undefined) {
      const runEnd = c.endedAt ?? end;
      const fill = c.exclusive ? COLORS.exclusive : COLORS.shared;
      const outline = c.failed ? ` stroke="${COLORS.failed}" stroke-width="2"` : "";
      parts.push(
        `<rect x="${x(c.beganAt).toFixed(1)}" y="${(y + 3).toFixed(1)}" width="${Math.max(1, x(runEnd) - x(c.beganAt)).toFixed(1)}" height="${h.toFixed(1)}" fill="${fill}"${outline}><title>${escapeXml(c.callId)} ${c.exclusive ? "exclusive" : "shared"}, ran ${(runEnd - c.beganAt).toFixed(1)} ms${c.failed ? ", failed" : ""}</title></rect>`,
      );
    }
  });
  const ly = height - 14;
  const legend: Array<[string, string]> = [
    [COLORS.waiting, "submitted, not started (queued, lock, gate)"],
    [COLORS.shared, "running, shared"],
    [COLORS.exclusive, "running, exclusive (alone)"],
  ];
  let lx = left;
  for (const [color, text] of legend) {
    parts.push(
      `<rect x="${lx}" y="${ly - 10}" width="12" height="12" fill="${color}"/>`,
      `<text x="${lx + 16}" y="${ly}" fill="${COLORS.text}">${escapeXml(text)}</text>`,
    );
    lx += 24 + text.length * 6.2;
  }
  parts.push(`</svg>`);
  return `${parts.join("\n")}\n`;
}

/**
 * The calls as text for a terminal: one line per call, `·` submitted but not started, `█` a
 * shared call running, `▓` an exclusive one, `✗` where a failed call ended; the axis below.
 */
export function timelineText(calls: readonly TimelineCall[], columns = 80): string {
  if (calls.length === 0) return "";
  const start = Math.min(...calls.map((c) => c.submittedAt));
  const end = Math.max(start + 1, ...calls.map((c) => c.endedAt ?? c.beganAt ?? c.submittedAt));
  const labelW = Math.min(28, Math.max(...calls.map((c) => c.label.length)));
  const barW = Math.max(20, columns - labelW - 4);
  const col = (t: number): number => Math.min(barW - 1, Math.floor(((t - start) / (end - start)) * barW));
  const lines = calls.map((c) => {
    const bar = Array.from({ length: barW }, () => " ");
    const began = c.beganAt ?? c.endedAt ?? end;
    for (let i = col(c.submittedAt); i < col(began); i++) bar[i] = "·";
    if (c.beganAt !== undefined) {
      const last = col(c.endedAt ?? end);
      for (let i = col(c.beganAt); i <= last; i++) bar[i] = c.exclusive ? "▓" : "█";
      if (c.failed) bar[last] = "✗";
    } else if (c.failed && c.endedAt !== undefined) bar[col(c.endedAt)] = "✗"; // refused before it ran
    const label = c.label.length > labelW ? `${c.label.slice(0, labelW - 1)}…` : c.label.padEnd(labelW);
    return `  ${label} ${bar.join("").trimEnd()}`;
  });
  const total = end - start;
  const axis = `  ${"".padEnd(labelW)} 0${msLabel(Math.round(total)).padStart(barW - 1)}`;
  const legend = `  ${"".padEnd(labelW)} · waiting  █ running (shared)  ▓ running (exclusive)  ✗ failed`;
  return `${[...lines, axis, legend].join("\n")}\n`;
}
