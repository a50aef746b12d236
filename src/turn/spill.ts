import { randomBytes } from "node:crypto";
import { createWriteStream, mkdirSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";

/** A spill file being written as a command prints. */
export interface SpillWriter {
  readonly path: string;
  write(chunk: Buffer): void;
  /** Resolves once every byte is on disk (a write error leaves what was written). */
  end(): Promise<void>;
}

/**
 * Outputs kept whole when the model sees them cut (`ToolsConfig.spillDir`, DESIGN section 15):
 * one file per cut output, named by its call, readable with read_file; all removed by `close()`
 * (the router's). Files are private to the user (0600 in a 0700 directory).
 */
export class SpillStore {
  private readonly files = new Set<string>();
  private made = false;

  constructor(readonly dir: string) {}

  /** Synchronous, so a command's output can switch to a file between two chunks. */
  private fileFor(callId: string): string {
    if (!this.made) {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      this.made = true;
    }
    // Call ids come from the model: only a safe slice of one names the file.
    const safe = callId.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64) || "call";
    const file = path.join(this.dir, `${safe}-${randomBytes(4).toString("hex")}.txt`);
    this.files.add(file);
    return file;
  }

  /** Writes a whole output; returns its path. */
  async keep(callId: string, text: string): Promise<string> {
    const file = this.fileFor(callId);
    await writeFile(file, text, { mode: 0o600 });
    return file;
  }

  /** A file to stream an output into, starting with `start` (what was captured so far). */
  open(callId: string, start: Buffer): SpillWriter {
    const file = this.fileFor(callId);
    const stream = createWriteStream(file, { mode: 0o600 });
    const failed = new Promise<void>((resolve) =>
      stream.once("error", () => {
        resolve();
      }),
    );
    stream.write(start);
    return {
      path: file,
      write: (chunk) => void stream.write(chunk),
      end: () => Promise.race([new Promise<void>((resolve) => stream.end(resolve)), failed]),
    };
  }

  /** Removes every file this store wrote. */
  async close(): Promise<void> {
    const files = [...this.files];
    this.files.clear();
    await Promise.all(files.map((f) => rm(f, { force: true })));
  }
}
