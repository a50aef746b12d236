import { StringDecoder } from "node:string_decoder";
import { emitEvent, type TurnContext } from "../../turn/index.js";

/** At most one delta per stream per interval, unless this much text is pending. */
const DELTA_INTERVAL_MS = 50;
const MAX_PENDING_CHARS = 64 * 1024;
/** Codex `MAX_EXEC_OUTPUT_DELTAS_PER_CALL`: a flood of output stops streaming, not the call. */
const MAX_DELTAS_PER_CALL = 10_000;

type Stream = "stdout" | "stderr";

/**
 * Streams a command's output as throttled `exec_command_output_delta` events: chunks are
 * decoded per stream (a character split across chunks stays whole) and coalesced.
 */
export class OutputDeltas {
  private readonly decoders = { stdout: new StringDecoder("utf8"), stderr: new StringDecoder("utf8") };
  private readonly pending = { stdout: "", stderr: "" };
  private timer: NodeJS.Timeout | undefined;
  private sent = 0;

  constructor(
    private readonly turn: TurnContext,
    private readonly callId: string,
    private readonly toolName: string,
  ) {}

  push(stream: Stream, chunk: Buffer): void {
    if (this.sent >= MAX_DELTAS_PER_CALL) return;
    this.pending[stream] += this.decoders[stream].write(chunk);
    if (this.pending[stream].length >= MAX_PENDING_CHARS) this.flush(stream);
    else
      this.timer ??= setTimeout(() => {
        this.flushAll();
      }, DELTA_INTERVAL_MS);
  }

  /** Sends what is pending (and what the decoders still hold); call when the command ends. */
  end(): void {
    for (const stream of ["stdout", "stderr"] as const) this.pending[stream] += this.decoders[stream].end();
    this.flushAll();
  }

  private flushAll(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.flush("stdout");
    this.flush("stderr");
  }

  private flush(stream: Stream): void {
    const chunk = this.pending[stream];
    if (chunk === "" || this.sent >= MAX_DELTAS_PER_CALL) return;
    this.pending[stream] = "";
    this.sent++;
    emitEvent(this.turn, {
      type: "exec_command_output_delta",
      callId: this.callId,
      toolName: this.toolName,
      stream,
      chunk,
    });
  }
}
