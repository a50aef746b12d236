/**
 * The sidecar's transport, one JSON message per line. In: every complete line of a chunk handed
 * over in one loop (node's readline costs an event and a regex per line, and splits `\r` too,
 * which JSON never carries raw). Out: messages written together once per event-loop turn, since
 * a turn of many calls sends a reply and an output per call and each write is a system call.
 */

/** Reads `input` as UTF-8 lines (`\n` or `\r\n`); `onEnd` once it ends, after its last line (one without a newline too). */
export function readLines(
  input: NodeJS.ReadableStream,
  onLine: (line: string) => void,
  onEnd: () => void,
): { stop(): void } {
  let rest = "";
  const lineOf = (text: string, start: number, end: number): string =>
    end > start && text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end);
  const onData = (chunk: string): void => {
    const text = rest === "" ? chunk : rest + chunk;
    let start = 0;
    for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
      const line = lineOf(text, start, nl);
      start = nl + 1;
      onLine(line);
    }
    rest = text.slice(start);
  };
  let ended = false;
  const onClose = (): void => {
    if (ended) return;
    ended = true;
    const last = rest;
    rest = "";
    if (last !== "") onLine(lineOf(last, 0, last.length));
    onEnd();
  };
  input.setEncoding("utf8");
  input.on("data", onData);
  input.once("end", onClose);
  return {
    /** Reads no more (the end is still reported once). */
    stop() {
      input.off("data", onData);
      input.pause();
      onClose();
    },
  };
}

/** Lines written together at the end of the event loop's turn. */
export class LineBatcher {
  private pending = "";
  private scheduled = false;

  constructor(private readonly stream: NodeJS.WritableStream) {}

  push(line: string): void {
    this.pending += `${line}\n`;
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.flush();
    });
  }

  private flush(): void {
    this.scheduled = false;
    if (this.pending === "") return;
    const text = this.pending;
    this.pending = "";
    this.stream.write(text);
  }

  /** Resolves once everything pushed so far is written. */
  flushed(): Promise<void> {
    this.flush();
    return new Promise((resolve) => {
      this.stream.write("", () => {
        resolve();
      });
    });
  }
}
