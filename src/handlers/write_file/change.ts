import { dirname, isAbsolute } from "node:path";
import { FunctionCallError } from "../../protocol/index.js";
import { judgedWrites, type FileReadLedger, type ToolInvocation } from "../../registry/index.js";
import { checkWriteOrEscalate, environmentOf, filesOf } from "../../sandbox/index.js";
import { errorMessage } from "../../util/index.js";

/**
 * Changing one whole file for a call, shared by write_file and edit_file: the path checks, the
 * session's read-before-write ledger, the sandbox's write check, and the write itself, every
 * file operation through the turn's environment (inside the sandbox under bubblewrap).
 */

const fail = (message: string): FunctionCallError => FunctionCallError.respondToModel(message);

/** The file a call is about to change, as it is on disk now. */
export type FileToChange =
  | { exists: false }
  | {
      exists: true;
      /** Its contents. */
      bytes: Buffer;
    };

/**
 * Opens `path` (absolute, as the model wrote it) for a change: readable in the turn's
 * environment (`checkRead`), not a directory, and, when it exists, seen by the session as it
 * is now (`fileReads.check`: `read {path} before changing it`, `{path} changed since it was
 * read`). A file that does not exist needs no read.
 */
export async function openForChange(
  inv: ToolInvocation,
  fileReads: FileReadLedger,
  path: string,
): Promise<FileToChange> {
  if (!isAbsolute(path)) throw fail("file_path must be an absolute path");
  await environmentOf(inv.turn).checkRead(path);
  const files = filesOf(inv.turn);
  // The ledger's check alongside the read: one round trip to a sandbox's helper.
  const [read, seen] = await Promise.allSettled([files.read(path), fileReads.check(files, path, path)]);
  if (read.status === "rejected") {
    const code = (read.reason as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { exists: false };
    if (code === "EISDIR") throw fail(`${path} is a directory`);
    throw fail(`failed to read ${path}: ${errorMessage(read.reason)}`);
  }
  if (seen.status === "rejected") throw seen.reason;
  const bytes = read.value.data; // a FIFO or device was refused at once
  return { exists: true, bytes };
}

/**
 * Writes `data` as the whole of `path` for a call: first the environment's write check (a path
 * outside the writable roots asks a person through `inv.escalate`; nothing is written unless
 * allowed), then the file written atomically where the environment resolves the path (through
 * a symlink to its target, the mode of a replaced file kept; a new file's parent directories
 * created), only where a path rule judged it to land (`judgedWrites`); the session's ledger
 * then records what it wrote.
 */
export async function writeForCall(
  inv: ToolInvocation,
  fileReads: FileReadLedger,
  path: string,
  file: FileToChange,
  data: string,
): Promise<void> {
  const checked = await checkWriteOrEscalate(environmentOf(inv.turn), [path], {
    cwd: inv.turn.cwd,
    escalate: inv.escalate?.bind(inv),
  });
  const files = judgedWrites(checked, inv.landing);
  inv.signal.throwIfAborted();
  try {
    if (!file.exists) await files.mkdir(dirname(path), { recursive: true });
    fileReads.rememberWrite(await files.write(path, data), data);
  } catch (err) {
    if (err instanceof FunctionCallError) throw err;
    throw fail(`failed to write ${path}: ${errorMessage(err)}`);
  }
}

/** `\r\n` when most line breaks in `text` are CRLF, else `\n`. */
export function lineEndingOf(text: string): "\r\n" | "\n" {
  let crlf = 0;
  let lf = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    if (i > 0 && text[i - 1] === "\r") crlf++;
    else lf++;
  }
  return crlf > lf ? "\r\n" : "\n";
}

/** `text` with every line break (`\n` or `\r\n`) written as `eol`. */
export function withLineEnding(text: string, eol: "\r\n" | "\n"): string {
  return text.replace(/\r?\n/g, eol);
}
