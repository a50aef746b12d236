/**
 * Parses Codex's patch format into hunks (port of `codex-rs/apply-patch/src/parser.rs`).
 * Parsing does not touch the file system. Like Codex it is lenient: markers may carry
 * surrounding whitespace, the first chunk of an update may omit `@@`, and a patch wrapped in
 * a `<<EOF ... EOF` heredoc is unwrapped.
 */

const BEGIN_PATCH_MARKER = "*** Begin Patch";
const END_PATCH_MARKER = "*** End Patch";
const ADD_FILE_MARKER = "*** Add File: ";
const DELETE_FILE_MARKER = "*** Delete File: ";
const UPDATE_FILE_MARKER = "*** Update File: ";
const MOVE_TO_MARKER = "*** Move to: ";
const EOF_MARKER = "*** End of File";
const CHANGE_CONTEXT_MARKER = "@@ ";
const EMPTY_CHANGE_CONTEXT_MARKER = "@@";

/** One line of an update chunk: context (` `), removed (`-`) or added (`+`). */
export interface ChunkLine {
  kind: " " | "-" | "+";
  text: string;
}

export interface UpdateFileChunk {
  /**
   * `@@ <context>` lines that narrow down where the chunk applies, sought in order (usually a
   * class, then a method). Codex keeps one; the grammar and the tool instructions allow several.
   */
  changeContext: string[];
  lines: ChunkLine[];
  /** The chunk's old lines must sit at the end of the file. */
  isEndOfFile: boolean;
}

export type Hunk =
  | { type: "add"; path: string; contents: string }
  | { type: "delete"; path: string }
  | { type: "update"; path: string; movePath?: string; chunks: UpdateFileChunk[] };

/** The lines a chunk expects in the file (context and removed lines). */
export function oldLines(chunk: { lines: ChunkLine[] }): string[] {
  return chunk.lines.filter((l) => l.kind !== "+").map((l) => l.text);
}

/** A patch that does not follow the format; the message is what the model sees. */
export class PatchParseError extends Error {
  constructor(
    readonly reason: string,
    readonly lineNumber?: number,
  ) {
    super(lineNumber === undefined ? `invalid patch: ${reason}` : `invalid hunk at line ${lineNumber}, ${reason}`);
    this.name = "PatchParseError";
  }
}

const invalidPatch = (reason: string): PatchParseError => new PatchParseError(reason);
const invalidHunk = (reason: string, lineNumber: number): PatchParseError => new PatchParseError(reason, lineNumber);

/** Rust `str::lines` on the trimmed text: splits on `\n` and drops a `\r` before it. */
function splitLines(text: string): string[] {
  const trimmed = text.trim();
  if (trimmed === "") return [];
  return trimmed.split("\n").map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
}

function checkBoundariesStrict(lines: string[]): string[] {
  const first = lines[0]?.trim();
  const last = lines[lines.length - 1]?.trim();
  // No lines at all: Codex names the last line.
  if (lines.length > 0 && first !== BEGIN_PATCH_MARKER)
    throw invalidPatch("The first line of the patch must be '*** Begin Patch'");
  if (lines.length < 2 || last !== END_PATCH_MARKER) {
    throw invalidPatch("The last line of the patch must be '*** End Patch'");
  }
  return lines.slice(1, -1);
}

/** Some models wrap the patch in a heredoc (`<<'EOF'` ... `EOF`); unwrap it. */
function checkBoundariesLenient(lines: string[]): string[] {
  try {
    return checkBoundariesStrict(lines);
  } catch (err) {
    const first = lines[0];
    const last = lines[lines.length - 1];
    const heredoc = first === "<<EOF" || first === "<<'EOF'" || first === '<<"EOF"';
    if (heredoc && last !== undefined && last.endsWith("EOF") && lines.length >= 4) {
      return checkBoundariesStrict(lines.slice(1, -1));
    }
    throw err;
  }
}

export function parsePatch(text: string): Hunk[] {
  const hunkLines = checkBoundariesLenient(splitLines(text));
  const hunks: Hunk[] = [];
  let rest = hunkLines;
  let lineNumber = 2;
  while (rest.length > 0) {
    const [hunk, consumed] = parseOneHunk(rest, lineNumber);
    hunks.push(hunk);
    lineNumber += consumed;
    rest = rest.slice(consumed);
  }
  return hunks;
}

function parseOneHunk(lines: string[], lineNumber: number): [Hunk, number] {
  const firstLine = (lines[0] ?? "").trim();
  if (firstLine.startsWith(ADD_FILE_MARKER)) {
    const path = firstLine.slice(ADD_FILE_MARKER.length);
    let contents = "";
    let consumed = 1;
    for (const line of lines.slice(1)) {
      if (!line.startsWith("+")) break;
      contents += `${line.slice(1)}\n`;
      consumed++;
    }
    return [{ type: "add", path, contents }, consumed];
  }
  if (firstLine.startsWith(DELETE_FILE_MARKER)) {
    return [{ type: "delete", path: firstLine.slice(DELETE_FILE_MARKER.length) }, 1];
  }
  if (firstLine.startsWith(UPDATE_FILE_MARKER)) {
    const path = firstLine.slice(UPDATE_FILE_MARKER.length);
    let consumed = 1;
    let movePath: string | undefined;
    if (lines[1]?.startsWith(MOVE_TO_MARKER)) {
      movePath = lines[1].slice(MOVE_TO_MARKER.length);
      consumed++;
    }
    const chunks: UpdateFileChunk[] = [];
    while (consumed < lines.length) {
      const line = lines[consumed] ?? "";
      // Blank lines between chunks are skipped; a `*` line starts the next hunk.
      if (line.trim() === "") {
        consumed++;
        continue;
      }
      if (line.startsWith("*")) break;
      const [chunk, chunkLines] = parseUpdateChunk(lines.slice(consumed), lineNumber + consumed, chunks.length === 0);
      chunks.push(chunk);
      consumed += chunkLines;
    }
    if (chunks.length === 0) throw invalidHunk(`Update file hunk for path '${path}' is empty`, lineNumber);
    const hunk: Hunk =
      movePath === undefined ? { type: "update", path, chunks } : { type: "update", path, movePath, chunks };
    return [hunk, consumed];
  }
  throw invalidHunk(
    `'${firstLine}' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'`,
    lineNumber,
  );
}

function contextOf(line: string): string | null | undefined {
  if (line === EMPTY_CHANGE_CONTEXT_MARKER) return null;
  if (line.startsWith(CHANGE_CONTEXT_MARKER)) return line.slice(CHANGE_CONTEXT_MARKER.length);
  return undefined;
}

function parseUpdateChunk(
  lines: string[],
  lineNumber: number,
  allowMissingContext: boolean,
): [UpdateFileChunk, number] {
  const changeContext: string[] = [];
  let start = 0;
  // Consecutive `@@` lines narrow the position step by step.
  for (let ctx = contextOf(lines[0] ?? ""); ctx !== undefined; ctx = contextOf(lines[start] ?? "")) {
    if (ctx !== null) changeContext.push(ctx);
    start++;
  }
  if (start === 0 && !allowMissingContext) {
    throw invalidHunk(`Expected update hunk to start with a @@ context marker, got: '${lines[0] ?? ""}'`, lineNumber);
  }
  // Errors point at the first line after the `@@` header(s), as Codex 0.171 does.
  const bodyLine = lineNumber + start;
  if (start >= lines.length) throw invalidHunk("Update hunk does not contain any lines", bodyLine);

  const chunk: UpdateFileChunk = { changeContext, lines: [], isEndOfFile: false };
  let parsed = 0;
  for (const line of lines.slice(start)) {
    if (line === EOF_MARKER) {
      if (parsed === 0) throw invalidHunk("Update hunk does not contain any lines", bodyLine);
      chunk.isEndOfFile = true;
      parsed++;
      break;
    }
    const marker = line[0];
    if (marker === undefined) {
      // A bare empty line is an empty context line.
      chunk.lines.push({ kind: " ", text: "" });
    } else if (marker === " " || marker === "-" || marker === "+") {
      chunk.lines.push({ kind: marker, text: line.slice(1) });
    } else {
      if (parsed === 0) {
        throw invalidHunk(
          `Unexpected line found in update hunk: '${line}'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)`,
          bodyLine,
        );
      }
      break; // the next chunk (`@@`) or hunk starts here
    }
    parsed++;
  }
  return [chunk, parsed + start];
}
