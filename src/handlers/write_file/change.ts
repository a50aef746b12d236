import { randomBytes } from "node:crypto";
import { chmod, mkdir, realpath, rename, stat, unlink, writeFile } from "node:fs/promises";
import { basename, dirname, isAbsolute, join } from "node:path";
import { FunctionCallError } from "../../protocol/index.js";
import type { FileReadLedger, ToolInvocation } from "../../registry/index.js";
import { checkWriteOrEscalate, environmentOf } from "../../sandbox/index.js";
import { errorMessage, openRegularFile } from "../../util/index.js";

/**
 * Changing one whole file for a call, shared by write_file and edit_file: the path checks, the
 * session's read-before-write ledger, the sandbox's write check, and the write itself.
 */

const fail = (message: string): FunctionCallError => FunctionCallError.respondToModel(message);

/** The file a call is about to change, as it is on disk now. */
export type FileToChange =
  | { exists: false }
  | {
      exists: true;
      /** Its contents. */
      bytes: Buffer;
      /** Its permission bits, kept by the rewrite. */
      mode: number;
      /** Its real path: a write through a symlink changes the file it points at. */
      target: string;
    };

async function readWhole(path: string): Promise<Buffer> {
  const handle = await openRegularFile(path);
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

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
  let info;
  try {
    info = await stat(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { exists: false };
    throw fail(`failed to read ${path}: ${errorMessage(err)}`);
  }
  if (info.isDirectory()) throw fail(`${path} is a directory`);
  let bytes: Buffer;
  try {
    bytes = await readWhole(path);
  } catch (err) {
    throw fail(`failed to read ${path}: ${errorMessage(err)}`);
  }
  await fileReads.check(path, path, bytes);
  return { exists: true, bytes, mode: info.mode & 0o7777, target: await realpath(path) };
}

/** Temp file beside the target, then rename: readers see the old file or the new one. */
async function replaceAtomically(target: string, data: string, mode: number): Promise<void> {
  const tmp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    await writeFile(tmp, data, { flag: "wx" });
    await chmod(tmp, mode);
    await rename(tmp, target);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}

/**
 * Writes `data` as the whole of `path` for a call: first the environment's write check (a path
 * outside the writable roots asks a person through `inv.escalate`; nothing is written unless
 * allowed), then a new file (its parent directories created) or the existing file replaced
 * atomically with its mode kept; the session's ledger then records what it wrote.
 */
export async function writeForCall(
  inv: ToolInvocation,
  fileReads: FileReadLedger,
  path: string,
  file: FileToChange,
  data: string,
): Promise<void> {
  await checkWriteOrEscalate(environmentOf(inv.turn), [path], {
    cwd: inv.turn.cwd,
    escalate: inv.escalate?.bind(inv),
  });
  inv.signal.throwIfAborted();
  try {
    if (file.exists) {
      await replaceAtomically(file.target, data, file.mode);
    } else {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, data); // through a dangling symlink too, to where the sandbox checked
    }
  } catch (err) {
    throw fail(`failed to write ${path}: ${errorMessage(err)}`);
  }
  await fileReads.recordWrite(path, data);
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
