import { FunctionCallError, type FunctionToolSpec, type ToolOutput } from "../../protocol/index.js";
import type { FileReadLedger, PolicySubject, ToolFactory, ToolHandler, ToolInvocation } from "../../registry/index.js";
import { lineEndingOf, openForChange, withLineEnding, writeForCall } from "../write_file/index.js";

export const EDIT_FILE_SPEC: FunctionToolSpec = {
  type: "function",
  annotations: { destructiveHint: true },
  name: "edit_file",
  description: [
    "Replaces exact text in a file.",
    "- Read the file with read_file first; the edit is refused if you did not, or if the file changed since.",
    "- old_string must match the file exactly, indentation included (the text after the `L{n}: ` prefix of read_file).",
    "- The edit fails when old_string is not unique: add surrounding lines to it, or set replace_all to change every occurrence (e.g. to rename).",
    "- An empty old_string creates a new file containing new_string.",
  ].join("\n"),
  strict: false,
  parameters: {
    type: "object",
    properties: {
      file_path: { type: "string", description: "Absolute path to the file to change" },
      old_string: { type: "string", description: "The exact text to replace" },
      new_string: { type: "string", description: "The text to replace it with (must differ from old_string)" },
      replace_all: { type: "boolean", description: "Replace every occurrence of old_string (default false)" },
    },
    required: ["file_path", "old_string", "new_string"],
    additionalProperties: false,
  },
};

interface EditFileArgs {
  file_path: string;
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

const fail = (message: string): FunctionCallError => FunctionCallError.respondToModel(message);

// ignoreBOM keeps a byte-order mark in the text, so it survives the rewrite.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** How many times `needle` (not empty) occurs in `text`, without overlaps. */
function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) count++;
  return count;
}

/**
 * `text` with `oldString` replaced by `newString`: the only occurrence, or every one with
 * `replaceAll`. In a CRLF file the model's `\n` line breaks are matched and written as `\r\n`
 * (its strings as sent are tried when that finds nothing: a file with mixed line endings).
 */
function replaceIn(
  text: string,
  path: string,
  args: { oldString: string; newString: string; replaceAll: boolean },
): { content: string; count: number } {
  const forms: Array<[string, string]> = [[args.oldString, args.newString]];
  if (lineEndingOf(text) === "\r\n") {
    const crlf = withLineEnding(args.oldString, "\r\n");
    if (crlf === args.oldString) forms.pop();
    forms.unshift([crlf, withLineEnding(args.newString, "\r\n")]);
  }
  for (const [oldString, newString] of forms) {
    const count = occurrences(text, oldString);
    if (count === 0) continue;
    if (count > 1 && !args.replaceAll) {
      throw fail(
        `old_string matches ${count} places in ${path}; set replace_all to replace every one, ` +
          `or add surrounding lines to old_string so that it matches one place only`,
      );
    }
    if (args.replaceAll) return { content: text.split(oldString).join(newString), count };
    const at = text.indexOf(oldString);
    return { content: text.slice(0, at) + newString + text.slice(at + oldString.length), count };
  }
  throw fail(`old_string not found in ${path}; it must match the file exactly, whitespace and indentation included`);
}

/**
 * `edit_file`: exact string replacement, as Claude Code's Edit. The file must have been seen by
 * the session as it is now (the ledger); an empty `old_string` creates a file that does not
 * exist (or fills an empty one). Keeps the file's line endings, byte-order mark and mode.
 * Mutating (waits for the gate) and exclusive.
 */
export class EditFileHandler implements ToolHandler {
  readonly kind = "function" as const;

  constructor(private readonly fileReads: FileReadLedger) {}

  isMutating(): boolean {
    return true;
  }

  policySubject(inv: ToolInvocation): PolicySubject {
    const path = (inv.args as EditFileArgs).file_path;
    return { paths: [path], summary: `edit_file ${path}` };
  }

  async handle(inv: ToolInvocation): Promise<ToolOutput> {
    const { file_path: path, old_string: oldString, new_string: newString, replace_all } = inv.args as EditFileArgs;
    if (oldString === newString) throw fail("old_string and new_string are the same; there is nothing to change");
    const file = await openForChange(inv, this.fileReads, path);
    if (!file.exists) {
      if (oldString !== "") throw fail(`${path} does not exist (an empty old_string creates it)`);
      await writeForCall(inv, this.fileReads, path, file, newString);
      return { kind: "function", body: `Created ${path}`, success: true };
    }
    let text: string;
    try {
      text = utf8.decode(file.bytes);
    } catch {
      throw fail(`${path} is not a UTF-8 text file`);
    }
    if (oldString === "") {
      if (text !== "") throw fail(`${path} already exists; old_string must not be empty when editing an existing file`);
      await writeForCall(inv, this.fileReads, path, file, newString);
      return { kind: "function", body: `Updated ${path}`, success: true };
    }
    const { content, count } = replaceIn(text, path, { oldString, newString, replaceAll: replace_all === true });
    await writeForCall(inv, this.fileReads, path, file, content);
    const replaced = count === 1 ? "1 replacement" : `${count} replacements`;
    return { kind: "function", body: `Updated ${path} (${replaced})`, success: true };
  }
}

export interface EditFileToolConfig {
  /** Default false (DESIGN section 15). */
  editFile?: boolean;
}

export const editFileToolFactory: ToolFactory<EditFileToolConfig> = (config, ctx) =>
  config.editFile === true
    ? [{ spec: EDIT_FILE_SPEC, handler: new EditFileHandler(ctx.fileReads), supportsParallel: false }]
    : [];
