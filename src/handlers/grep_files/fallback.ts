import type { FileOps } from "../../protocol/index.js";
import { looksBinary, readLines } from "../../util/index.js";
import { compileGlob } from "./glob.js";
import { walkFiles } from "./walk.js";

/** Files read at once: a read is mostly waiting on the disk or the sandbox helper. */
const READ_CONCURRENCY = 16;
/** Files up to this size are read whole and their text tested once; larger ones line by line. */
const WHOLE_READ_BYTES = 4 * 1024 * 1024;
/** In line-by-line search, lines longer than this are searched in their first part only. */
const MAX_SEARCH_LINE_BYTES = 1024 * 1024;

export interface SearchRequest {
  pattern: string;
  include: string | undefined;
  /** Absolute file or directory. */
  root: string;
  signal: AbortSignal;
  /** Where the files are read: the turn's environment. */
  files: FileOps;
}

/** A matching file with its modification time, the order both searches list by. */
export interface DatedPath {
  path: string;
  mtimeMs: number;
}

/**
 * Ripgrep's pattern dialect is Rust `regex`; the common subset maps 1:1 onto JS. Inline
 * flags at the start (`(?i)`, `(?s)`, `(?m)`, `(?x)` is not supported) become JS flags;
 * `extraFlags` are added (`m` to test a whole text with line anchors).
 */
function compilePattern(pattern: string, extraFlags = ""): RegExp {
  let source = pattern;
  let flags = `u${extraFlags}`;
  const inline = /^\(\?([ims]+)\)/.exec(source);
  if (inline) {
    source = source.slice(inline[0].length);
    for (const f of inline[1] as string) if (!flags.includes(f)) flags += f;
  }
  try {
    return new RegExp(source, flags);
  } catch {
    // Unicode mode rejects escapes such as `\-` that Rust accepts.
    return new RegExp(source, flags.replace("u", ""));
  }
}

interface Matcher {
  /** Line-oriented, as ripgrep: a match never spans a line break. */
  line: RegExp;
  /** The same with `^`/`$` at line breaks: one test over a whole file's text. */
  text: RegExp;
}

/** Where JS puts `^`/`$` under `m` but ripgrep does not: only `\n` ends a line for it. */
const OTHER_BREAKS = /[\r\u2028\u2029]/;

/**
 * Whether a whole text has a line that matches. One test of the text finds every line match
 * (`m` puts the anchors at line breaks); a hit is checked again line by line only when it may
 * not be one for ripgrep: it spans a `\n` (`\s`, `[^x]` reach across one), or the text has
 * `\r` (JS anchors there, ripgrep does not).
 */
function textMatches(text: string, m: Matcher): boolean {
  const hit = m.text.exec(text);
  if (hit === null) return false;
  if (!hit[0].includes("\n") && !OTHER_BREAKS.test(text)) return true;
  return text.split("\n").some((line) => m.line.test(line));
}

async function linesMatch(files: FileOps, path: string, m: Matcher, signal: AbortSignal): Promise<boolean> {
  const decoder = new TextDecoder("utf-8");
  let found = false;
  await readLines(async (position, length) => (await files.read(path, { position, length })).data, {
    maxLineBytes: MAX_SEARCH_LINE_BYTES,
    signal,
    visit: ({ bytes }) => {
      found = m.line.test(decoder.decode(bytes));
      return !found;
    },
  });
  return found;
}

/** The file's modification time when its contents match, else undefined (binary and unreadable files too). */
async function fileMatch(files: FileOps, path: string, m: Matcher, signal: AbortSignal): Promise<number | undefined> {
  try {
    const { data, stat } = await files.read(path, { length: WHOLE_READ_BYTES });
    if (looksBinary(data)) return undefined;
    const found =
      stat.size <= data.length ? textMatches(data.toString("utf8"), m) : await linesMatch(files, path, m, signal);
    return found ? stat.mtimeMs : undefined;
  } catch (err) {
    if (signal.aborted) throw err;
    return undefined; // unreadable files are skipped, as `rg --no-messages` does
  }
}

/** Sorts newest first (ties by path) and keeps `limit`: the order and cut of both searches. */
function newestOf(dated: DatedPath[], limit: number): DatedPath[] {
  dated.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  if (dated.length > limit) dated.length = limit;
  return dated;
}

/**
 * The JS stand-in for `rg --files-with-matches`: same defaults as ripgrep (hidden files and
 * symlinks skipped, ignore files honoured, binary files skipped, line-oriented matching).
 * The walk streams files into up to READ_CONCURRENCY reads at once; each file is read whole
 * and its text tested once. Every match has to be seen to know the newest `limit`, so the
 * search keeps only those (memory stays bounded however many files match).
 */
export async function searchWithJs(req: SearchRequest, limit: number): Promise<DatedPath[]> {
  const m: Matcher = { line: compilePattern(req.pattern), text: compilePattern(req.pattern, "m") };
  const includeRule = req.include === undefined ? undefined : compileGlob(req.include);
  let matches: DatedPath[] = [];
  // Reads never reject (a rejection nobody awaits yet would be unhandled): the first failure waits here.
  let failure: { err: unknown } | undefined;
  let active = 0;
  // The walk's callers waiting for a free read slot, and the end waiting for none to be busy.
  const waiting: Array<() => void> = [];

  const consider = async (path: string): Promise<void> => {
    try {
      const mtimeMs = await fileMatch(req.files, path, m, req.signal);
      if (mtimeMs !== undefined) {
        matches.push({ path, mtimeMs });
        if (matches.length >= 2 * limit) matches = newestOf(matches, limit);
      }
    } catch (err) {
      failure ??= { err };
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
  const enqueue = async (path: string): Promise<void> => {
    while (active >= READ_CONCURRENCY) await new Promise<void>((resolve) => waiting.push(resolve));
    if (failure) throw failure.err;
    active++;
    void consider(path);
  };

  const rootInfo = await req.files.stat(req.root);
  try {
    if (rootInfo.kind === "file") {
      await enqueue(req.root);
    } else if (rootInfo.kind === "directory") {
      const accept =
        includeRule &&
        ((rel: string, isDir: boolean): boolean => {
          const hit = includeRule.regex.test(rel) && (!includeRule.dirOnly || isDir);
          // `!glob` excludes files and directories; a plain glob whitelists files only.
          return includeRule.negated ? !hit : isDir || hit;
        });
      await walkFiles(req.root, { files: req.files, signal: req.signal, ...(accept && { accept }) }, enqueue);
    }
  } finally {
    // A failed walk still waits for its reads: none outlives the call.
    while (active > 0) await new Promise<void>((resolve) => waiting.push(resolve));
  }
  if (failure) throw failure.err;
  return newestOf(matches, limit);
}

const STAT_BATCH = 32;

/**
 * The `limit` most recently modified of `paths`, newest first (ties by path). Sorting here
 * rather than with `rg --sortr=modified` keeps one global order for both searches (ripgrep 13
 * sorts per directory) and lets rg search in parallel.
 */
export async function newestFirst(
  files: FileOps,
  paths: string[],
  limit: number,
  signal: AbortSignal,
): Promise<string[]> {
  const dated: DatedPath[] = [];
  for (let i = 0; i < paths.length; i += STAT_BATCH) {
    signal.throwIfAborted();
    const batch = paths.slice(i, i + STAT_BATCH);
    const infos = await Promise.all(batch.map((p) => files.stat(p).catch(() => undefined)));
    infos.forEach((info, j) => {
      if (info) dated.push({ path: batch[j] as string, mtimeMs: info.mtimeMs });
    });
  }
  return newestOf(dated, limit).map((d) => d.path);
}
