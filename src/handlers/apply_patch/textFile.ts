import { oldLines, type ChunkLine, type UpdateFileChunk } from "./parser.js";
import { PatchApplyError } from "./errors.js";
import { seekSequence } from "./seekSequence.js";

type LineEnding = "\n" | "\r\n";

interface SourceLine {
  text: string;
  /** Undefined for a last line without a newline. */
  ending: LineEnding | undefined;
}

/** Where a chunk lands: `oldLen` lines from `start` become the chunk's `lines`. */
interface Replacement {
  start: number;
  oldLen: number;
  lines: ChunkLine[];
}

/**
 * A text file as lines that remember their own line ending (Codex `text_file.rs`): matching
 * sees the text only, untouched lines keep their bytes, and new lines take the file's first
 * line ending, so CRLF and mixed files survive an update.
 */
class SourceFile {
  private constructor(
    private lines: SourceLine[],
    private readonly preferred: LineEnding,
  ) {}

  static parse(contents: string): SourceFile {
    const lines: SourceLine[] = [];
    let preferred: LineEnding | undefined;
    let lineStart = 0;
    for (let nl = contents.indexOf("\n"); nl !== -1; nl = contents.indexOf("\n", lineStart)) {
      const crlf = nl > lineStart && contents[nl - 1] === "\r";
      const ending: LineEnding = crlf ? "\r\n" : "\n";
      preferred ??= ending;
      lines.push({ text: contents.slice(lineStart, crlf ? nl - 1 : nl), ending });
      lineStart = nl + 1;
    }
    if (lineStart < contents.length) lines.push({ text: contents.slice(lineStart), ending: undefined });
    return new SourceFile(lines, preferred ?? "\n");
  }

  texts(): string[] {
    return this.lines.map((l) => l.text);
  }

  /**
   * Applies replacements sorted by `start`. Context lines keep the file's own line (text and
   * ending), so a fuzzy match never rewrites the context it matched.
   */
  apply(replacements: Replacement[]): void {
    const out: SourceLine[] = [];
    let next = 0;
    for (const { start, oldLen, lines } of replacements) {
      out.push(...this.lines.slice(next, start));
      let old = start;
      for (const line of lines) {
        if (line.kind === "+") {
          out.push({ text: line.text, ending: this.preferred });
          continue;
        }
        const original = this.lines[old];
        if (line.kind === " " && original) out.push(original);
        old++;
      }
      next = start + oldLen;
    }
    out.push(...this.lines.slice(next));
    // Updates end every line, the last included, with a newline (as Codex does).
    this.lines = out.map((l) => (l.ending ? l : { text: l.text, ending: this.preferred }));
  }

  contents(): string {
    return this.lines.map((l) => l.text + (l.ending ?? "")).join("");
  }
}

/**
 * Codex retries a chunk whose old lines end with an empty line without it: that line stands
 * for the file's final newline, which is not a line of its own here.
 */
function withoutTrailingEmptyLine(lines: ChunkLine[]): ChunkLine[] {
  const lastOld = lines.findLastIndex((l) => l.kind !== "+");
  const lastNew = lines.findLastIndex((l) => l.kind !== "-");
  const drop = new Set([lastOld]);
  if (lastNew !== -1 && lines[lastNew]?.text === "") drop.add(lastNew);
  return lines.filter((_, i) => !drop.has(i));
}

function computeReplacements(fileLines: string[], displayPath: string, chunks: UpdateFileChunk[]): Replacement[] {
  const replacements: Replacement[] = [];
  let lineIndex = 0;
  for (const chunk of chunks) {
    for (const context of chunk.changeContext) {
      const idx = seekSequence(fileLines, [context], lineIndex, false);
      if (idx === undefined) throw new PatchApplyError(`Failed to find context '${context}' in ${displayPath}`);
      lineIndex = idx + 1;
    }
    const expected = oldLines(chunk);
    if (expected.length === 0) {
      // Pure addition: append at the end, before a final empty line if there is one.
      const at = fileLines[fileLines.length - 1] === "" ? fileLines.length - 1 : fileLines.length;
      replacements.push({ start: at, oldLen: 0, lines: chunk.lines });
      continue;
    }
    let lines = chunk.lines;
    let found = seekSequence(fileLines, expected, lineIndex, chunk.isEndOfFile);
    if (found === undefined && expected[expected.length - 1] === "") {
      lines = withoutTrailingEmptyLine(lines);
      found = seekSequence(fileLines, oldLines({ lines }), lineIndex, chunk.isEndOfFile);
    }
    if (found === undefined) {
      throw new PatchApplyError(`Failed to find expected lines in ${displayPath}:\n${expected.join("\n")}`);
    }
    const oldLen = oldLines({ lines }).length;
    replacements.push({ start: found, oldLen, lines });
    lineIndex = found + oldLen;
  }
  // Stable: pure additions keep their chunk order at the same index.
  replacements.sort((a, b) => a.start - b.start);
  replacements.forEach((r, i) => {
    const prev = replacements[i - 1];
    // Only an end-of-file chunk can land before the end of the previous one.
    if (prev && r.start < prev.start + prev.oldLen) {
      throw new PatchApplyError(`Chunks overlap in ${displayPath} at line ${r.start + 1}`);
    }
  });
  return replacements;
}

/** The file's new contents after the chunks; throws `PatchApplyError` naming what did not match. */
export function applyChunks(contents: string, chunks: UpdateFileChunk[], displayPath: string): string {
  const file = SourceFile.parse(contents);
  file.apply(computeReplacements(file.texts(), displayPath, chunks));
  return file.contents();
}
