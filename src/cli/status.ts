import type { ToolEvent } from "../turn/index.js";
import { now } from "../util/index.js";

export type CallState = "queued" | "waiting for lock" | "running" | "done" | "failed";

interface Row {
  callId: string;
  label: string;
  exclusive: boolean;
  state: CallState;
  submittedAt: number;
  beganAt?: number;
  endedAt?: number;
}

const secs = (ms: number): string => `${(ms / 1000).toFixed(2)}s`;

const LABEL_WIDTH = 44;
const MIN_LABEL_WIDTH = 8;
/** A TTY stream that does not say its width. */
const DEFAULT_COLUMNS = 80;

const graphemes = new Intl.Segmenter();

/** At most `width` characters (graphemes), the cut marked with an ellipsis; control characters become spaces. */
function clip(text: string, width: number): string {
  const chars = Array.from(graphemes.segment(text), (s) => (s.segment < " " || s.segment === "\x7f" ? " " : s.segment));
  return chars.length <= width ? chars.join("") : `${chars.slice(0, Math.max(0, width - 1)).join("")}…`;
}

/**
 * Per-call status of a running turn: redrawn in place on a TTY, one plain line per state
 * change otherwise. "waiting for lock" follows the runtime's FIFO-fair rule: a call waits
 * when an earlier unfinished call conflicts with it (one of the two is exclusive); it shows
 * so until its handler starts.
 */
export class LiveStatus {
  private readonly rows: Row[] = [];
  private readonly byId = new Map<string, Row>();
  private readonly start = now();
  private drawn = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly out: NodeJS.WritableStream,
    private readonly tty: boolean,
  ) {
    // Running calls' clocks tick on a TTY; the plain form only prints changes.
    if (tty)
      this.timer = setInterval(() => {
        this.draw();
      }, 100).unref();
  }

  add(callId: string, label: string, { exclusive }: { exclusive: boolean }): void {
    const blocked = this.rows.some((earlier) => !finished(earlier) && (earlier.exclusive || exclusive));
    const row: Row = { callId, label, exclusive, state: blocked ? "waiting for lock" : "queued", submittedAt: now() };
    this.rows.push(row);
    this.byId.set(callId, row);
    if (!this.tty) this.out.write(`${this.stamp()} ${this.line(row)}\n`);
    this.draw();
  }

  onEvent(event: ToolEvent): void {
    const row = this.byId.get(event.callId);
    if (!row) return;
    if (event.type === "tool_call_begin") {
      row.beganAt = now();
      this.set(row, "running");
    } else if (event.type === "tool_call_end") {
      row.endedAt = now();
      this.set(row, event.success ? "done" : "failed");
    } else {
      return;
    }
    this.draw();
  }

  /** A message between status updates (an approval prompt), printed above the status rows. */
  note(text: string): void {
    if (this.tty && this.drawn > 0) {
      // Clear the rows drawn in place; they are drawn again below the note.
      this.out.write(`\x1b[${this.drawn}A\x1b[0J`);
      this.drawn = 0;
    }
    this.out.write(text.endsWith("\n") ? text : `${text}\n`);
    this.draw();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.draw();
  }

  private set(row: Row, state: CallState): void {
    if (row.state === state) return;
    row.state = state;
    if (!this.tty) this.out.write(`${this.stamp()} ${this.line(row)}\n`);
  }

  private stamp(): string {
    return `[+${secs(now() - this.start)}]`;
  }

  /** One row; on a TTY cut to the terminal's width, so no row wraps and redraws stay in place. */
  private line(row: Row): string {
    const t = now();
    let times = "";
    if (row.state === "running" && row.beganAt !== undefined) times = `for ${secs(t - row.beganAt)}`;
    if (finished(row) && row.endedAt !== undefined) {
      const began = row.beganAt ?? row.endedAt;
      times = `waited ${secs(began - row.submittedAt)}, ran ${secs(row.endedAt - began)}`;
    } else if (row.state !== "running") {
      times = `for ${secs(t - row.submittedAt)}`;
    }
    const kind = row.exclusive ? "exclusive" : "shared";
    const rest = ` ${kind.padEnd(9)} ${row.state.padEnd(16)} ${times}`;
    const width = this.width();
    if (width === undefined) return `${row.label.padEnd(LABEL_WIDTH)}${rest}`;
    // The label gives way first, then the end of the row.
    const labelWidth = Math.max(MIN_LABEL_WIDTH, Math.min(LABEL_WIDTH, width - rest.length));
    return clip(`${clip(row.label, labelWidth).padEnd(labelWidth)}${rest}`, width);
  }

  /** Columns a row may use on a TTY (one less than the terminal's: some wrap at the last column). */
  private width(): number | undefined {
    if (!this.tty) return undefined;
    const columns = (this.out as { columns?: unknown }).columns;
    return typeof columns === "number" && columns > 1 ? columns - 1 : DEFAULT_COLUMNS - 1;
  }

  private draw(): void {
    if (!this.tty) return;
    const up = this.drawn > 0 ? `\x1b[${this.drawn}A` : "";
    const body = this.rows.map((r) => `\x1b[2K${this.line(r)}\n`).join("");
    this.out.write(up + body);
    this.drawn = this.rows.length;
  }
}

const finished = (row: Row): boolean => row.state === "done" || row.state === "failed";
