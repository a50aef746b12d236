import type { FileOps } from "../../protocol/index.js";
import { looksBinary, readLines } from "../../util/index.js";
import { compileGlob } from "./glob.js";
import { walkFiles } from "./walk.js";

/** Lines longer than this are searched in their first part only. */
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

/**
 * Ripgrep's pattern dialect is Rust `regex`; the common subset maps 1:1 onto JS. Inline
 * flags at the start (`(?i)`, `(?s)`, `(?m)`, `(?x)` is not supported) become JS flags.
 */
function compilePattern(pattern: string): RegExp {
  let source = pattern;
  let flags = "u";
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

async function fileMatches(files: FileOps, path: string, regex: RegExp, signal: AbortSignal): Promise<boolean> {
  const decoder = new TextDecoder("utf-8");
  let found = false;
  try {
    await readLines(async (position, length) => (await files.read(path, { position, length })).data, {
      maxLineBytes: MAX_SEARCH_LINE_BYTES,
      signal,
      onFirstChunk: (head) => !looksBinary(head),
      visit: ({ bytes }) => {
        found = regex.test(decoder.decode(bytes));
        return !found;
      },
    });
  } catch (err) {
    if (signal.aborted) throw err;
    return false; // unreadable files are skipped, as `rg --no-messages` does
  }
  return found;
}

/**
 * The JS stand-in for `rg --files-with-matches`: same defaults as ripgrep (hidden files and
 * symlinks skipped, `.gitignore` inside git repositories and `.ignore` honoured, binary files
 * skipped, line-by-line matching). Every matching path, unordered.
 */
export async function searchWithJs(req: SearchRequest): Promise<string[]> {
  const regex = compilePattern(req.pattern);
  const includeRule = req.include === undefined ? undefined : compileGlob(req.include);
  const matches: string[] = [];

  const consider = async (path: string): Promise<void> => {
    if (await fileMatches(req.files, path, regex, req.signal)) matches.push(path);
  };

  const rootInfo = await req.files.stat(req.root);
  if (rootInfo.kind === "file") {
    await consider(req.root);
  } else if (rootInfo.kind === "directory") {
    const accept =
      includeRule &&
      ((rel: string, isDir: boolean): boolean => {
        const hit = includeRule.regex.test(rel) && (!includeRule.dirOnly || isDir);
        // `!glob` excludes files and directories; a plain glob whitelists files only.
        return includeRule.negated ? !hit : isDir || hit;
      });
    await walkFiles(req.root, { files: req.files, signal: req.signal, ...(accept && { accept }) }, consider);
  }
  return matches;
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
  const dated: Array<{ path: string; mtimeMs: number }> = [];
  for (let i = 0; i < paths.length; i += STAT_BATCH) {
    signal.throwIfAborted();
    const batch = paths.slice(i, i + STAT_BATCH);
    const infos = await Promise.all(batch.map((p) => files.stat(p).catch(() => undefined)));
    infos.forEach((info, j) => {
      if (info) dated.push({ path: batch[j] as string, mtimeMs: info.mtimeMs });
    });
  }
  dated.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return dated.slice(0, limit).map((d) => d.path);
}
