import { isAbsolute } from "node:path";
import { FunctionCallError, type ToolOutput, type FunctionToolSpec } from "../../protocol/index.js";
import type { FileReadLedger, PolicySubject, ToolFactory, ToolHandler, ToolInvocation } from "../../registry/index.js";
import { environmentOf, filesOf } from "../../sandbox/index.js";
import { errorMessage, looksBinary, READ_CHUNK_BYTES, readLines } from "../../util/index.js";

const MAX_LINE_CHARS = 500;
const DEFAULT_LIMIT = 2000;
// Enough bytes for MAX_LINE_CHARS code points of up to 4 UTF-8 bytes each.
const MAX_LINE_BYTES = MAX_LINE_CHARS * 4;

export const READ_FILE_SPEC: FunctionToolSpec = {
  type: "function",
  annotations: { readOnlyHint: true },
  name: "read_file",
  description: "Reads a local file with 1-indexed line numbers.",
  strict: false,
  parameters: {
    type: "object",
    properties: {
      file_path: { type: "string", description: "Absolute path to the file" },
      offset: { type: "integer", description: "The line number to start reading from. Must be 1 or greater." },
      limit: { type: "integer", description: "The maximum number of lines to return." },
    },
    required: ["file_path"],
    additionalProperties: false,
  },
};

interface ReadFileArgs {
  file_path: string;
  offset?: number;
  limit?: number;
}

const fail = (message: string): FunctionCallError => FunctionCallError.respondToModel(message);

/** Cuts to at most `max` code points without splitting a surrogate pair. */
function cutChars(text: string, max: number): string {
  if (text.length <= max) return text;
  let out = "";
  let count = 0;
  for (const ch of text) {
    if (count === max) break;
    out += ch;
    count++;
  }
  return out;
}

/**
 * A file read whole in its first chunk, decoded once: the same lines as the streaming path
 * (which decodes each line on its own, so a BOM would be dropped at the start of every line:
 * such a file takes that path). `seen`: the lines visited, as `readLines` counts them.
 */
function wholeFileLines(
  data: Buffer,
  offset: number,
  limit: number,
): { collected: string[]; seen: number } | undefined {
  const text = data.toString("utf8");
  if (text.includes("\uFEFF")) return undefined;
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop(); // the end of the last line, not a line
  const collected: string[] = [];
  const end = Math.min(lines.length, offset - 1 + limit);
  for (let i = offset - 1; i < end; i++) {
    const line = lines[i] as string;
    const text = line.endsWith("\r") ? line.slice(0, -1) : line;
    collected.push(`L${i + 1}: ${cutChars(text, MAX_LINE_CHARS)}`);
  }
  return { collected, seen: collected.length === limit ? end : lines.length };
}

/** The model-facing refusal for a file that cannot be opened for reading. */
function unreadable(path: string, err: unknown): FunctionCallError {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ENOENT" || code === "ENOTDIR") return fail(`failed to read file: ${path} does not exist`);
  if (code === "EISDIR") return fail(`failed to read file: ${path} is a directory; use list_dir to list it`);
  return fail(`failed to read file: ${errorMessage(err)}`);
}

/**
 * Codex `read_file` (slice mode): `L{n}: text` lines from `offset`, at most `limit` of them,
 * each cut at 500 characters. The file is streamed and reading stops after `limit` lines.
 * With the session's `fileReads`, a read that answered with lines (or found the file empty)
 * counts as having seen the file, partial reads included: `edit_file` and `write_file` may
 * then change it.
 */
export class ReadFileHandler implements ToolHandler {
  readonly kind = "function" as const;

  constructor(private readonly fileReads?: FileReadLedger) {}

  policySubject(inv: ToolInvocation): PolicySubject {
    const path = (inv.args as ReadFileArgs).file_path;
    return { paths: [path], summary: `read_file ${path}` };
  }

  async handle(inv: ToolInvocation): Promise<ToolOutput> {
    const { file_path: path, offset = 1, limit = DEFAULT_LIMIT } = inv.args as ReadFileArgs;
    if (offset < 1) throw fail("offset must be a 1-indexed line number");
    if (limit < 1) throw fail("limit must be greater than zero");
    if (!isAbsolute(path)) throw fail("file_path must be an absolute path");
    const files = filesOf(inv.turn);
    // The file is opened only once the check passed, and names the file it opened: its real
    // path is the ledger's key, and where a path rule judged the call, what is judged again
    // (a link flipped since the decision must not lead the read elsewhere). The first chunk's
    // state (taken on the open descriptor before reading) is the ledger's snapshot, so a change
    // during the read counts as a change since it.
    await environmentOf(inv.turn).checkRead(path);
    const first = await files.read(path, { length: READ_CHUNK_BYTES, named: true }).catch((err: unknown) => {
      throw unreadable(path, err);
    });
    // A file system that cannot name what it opened (an embedder's, a container's shell) is asked.
    const realPath = first.real ?? (await files.realpath(path).catch(() => undefined));
    const refusal = inv.landing?.judge(realPath ?? path, path);
    if (refusal !== undefined) throw fail(refusal);
    const snapshot =
      realPath === undefined ? undefined : await this.fileReads?.snapshotOf(files, realPath, first.stat, first.data);
    // The call's signal is read only past the first chunk: a small file needs no AbortController.
    const read = async (position: number, length: number): Promise<Buffer> => {
      if (position === 0 && length === READ_CHUNK_BYTES) return first.data;
      inv.signal.throwIfAborted();
      // Each chunk opens the path again: judged again where a path rule judged the call.
      if (inv.landing === undefined) return (await files.read(path, { position, length })).data;
      const next = await files.read(path, { position, length, named: true });
      const again = next.real === undefined || next.real === realPath ? undefined : inv.landing.judge(next.real, path);
      if (again !== undefined) throw fail(again);
      return next.data;
    };
    const whole = first.data;
    if (whole.length < READ_CHUNK_BYTES) {
      if (looksBinary(whole)) throw fail(`failed to read file: ${path} is a binary file`);
      const lines = wholeFileLines(whole, offset, limit);
      if (lines !== undefined) {
        if (snapshot && (lines.seen >= offset || lines.seen === 0)) this.fileReads?.remember(snapshot);
        if (lines.seen < offset) throw fail("offset exceeds file length");
        return { kind: "function", body: lines.collected.join("\n"), success: true };
      }
    }
    const decoder = new TextDecoder("utf-8");
    const collected: string[] = [];
    let binary = false;
    let seen: number;
    try {
      seen = await readLines(read, {
        maxLineBytes: MAX_LINE_BYTES,
        onFirstChunk: (head) => !(binary = looksBinary(head)),
        visit: ({ number, bytes }) => {
          if (number < offset) return true;
          collected.push(`L${number}: ${cutChars(decoder.decode(bytes), MAX_LINE_CHARS)}`);
          return collected.length < limit;
        },
      });
    } catch (err) {
      if (inv.signal.aborted || err instanceof FunctionCallError) throw err;
      throw fail(`failed to read file: ${errorMessage(err)}`);
    }
    if (binary) throw fail(`failed to read file: ${path} is a binary file`);
    // An empty file has been seen whole, though there is no line to answer with.
    if (snapshot && (seen >= offset || seen === 0)) this.fileReads?.remember(snapshot);
    if (seen < offset) throw fail("offset exceeds file length");
    return { kind: "function", body: collected.join("\n"), success: true };
  }
}

export interface ReadFileToolConfig {
  /** Default true. */
  readFile?: boolean;
}

export const readFileToolFactory: ToolFactory<ReadFileToolConfig> = (config, ctx) =>
  config.readFile === false
    ? []
    : [{ spec: READ_FILE_SPEC, handler: new ReadFileHandler(ctx.fileReads), supportsParallel: true }];
