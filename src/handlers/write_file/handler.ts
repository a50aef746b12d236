import type { FunctionToolSpec, ToolOutput } from "../../protocol/index.js";
import type { FileReadLedger, PolicySubject, ToolFactory, ToolHandler, ToolInvocation } from "../../registry/index.js";
import { lineEndingOf, openForChange, withLineEnding, writeForCall } from "./change.js";

export const WRITE_FILE_SPEC: FunctionToolSpec = {
  type: "function",
  annotations: { destructiveHint: true },
  name: "write_file",
  description: [
    "Writes a file, creating it (and its parent directories) or replacing all of its contents.",
    "- An existing file must have been read with read_file first; the write is refused if it was not, or if it changed since.",
    "- Prefer edit_file to change part of an existing file.",
  ].join("\n"),
  strict: false,
  parameters: {
    type: "object",
    properties: {
      file_path: { type: "string", description: "Absolute path to the file to write" },
      content: { type: "string", description: "The whole content of the file" },
    },
    required: ["file_path", "content"],
    additionalProperties: false,
  },
};

interface WriteFileArgs {
  file_path: string;
  content: string;
}

/**
 * `write_file`: creates a file or replaces it whole. An existing file must have been seen by the
 * session as it is now (the ledger); replacing a file keeps its mode and, when it uses CRLF line
 * endings and `content` has none, its line endings. Mutating (waits for the gate) and exclusive.
 */
export class WriteFileHandler implements ToolHandler {
  readonly kind = "function" as const;

  constructor(private readonly fileReads: FileReadLedger) {}

  isMutating(): boolean {
    return true;
  }

  policySubject(inv: ToolInvocation): PolicySubject {
    const path = (inv.args as WriteFileArgs).file_path;
    return { paths: [path], summary: `write_file ${path}` };
  }

  async handle(inv: ToolInvocation): Promise<ToolOutput> {
    const { file_path: path, content } = inv.args as WriteFileArgs;
    const file = await openForChange(inv, this.fileReads, path);
    let data = content;
    if (file.exists && !content.includes("\r\n") && lineEndingOf(file.bytes.toString("utf8")) === "\r\n") {
      data = withLineEnding(content, "\r\n");
    }
    await writeForCall(inv, this.fileReads, path, file, data);
    return { kind: "function", body: file.exists ? `Overwrote ${path}` : `Created ${path}`, success: true };
  }
}

export interface WriteFileToolConfig {
  /** Default false (DESIGN section 15). */
  writeFile?: boolean;
}

export const writeFileToolFactory: ToolFactory<WriteFileToolConfig> = (config, ctx) =>
  config.writeFile === true
    ? [{ spec: WRITE_FILE_SPEC, handler: new WriteFileHandler(ctx.fileReads), supportsParallel: false }]
    : [];
