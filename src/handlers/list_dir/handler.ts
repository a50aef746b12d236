import { isAbsolute, join } from "node:path";
import {
  FunctionCallError,
  type DirEntry,
  type FileOps,
  type ToolOutput,
  type FunctionToolSpec,
} from "../../protocol/index.js";
import type { PolicySubject, ToolFactory, ToolHandler, ToolInvocation } from "../../registry/index.js";
import { environmentOf, filesOf } from "../../sandbox/index.js";
import { errorMessage } from "../../util/index.js";

const MAX_ENTRY_CHARS = 500;
const INDENT_SPACES = 2;

export const LIST_DIR_SPEC: FunctionToolSpec = {
  type: "function",
  annotations: { readOnlyHint: true },
  name: "list_dir",
  description: "Lists entries in a local directory with 1-indexed entry numbers and simple type labels.",
  strict: false,
  parameters: {
    type: "object",
    properties: {
      dir_path: { type: "string", description: "Absolute path to the directory to list." },
      offset: { type: "integer", description: "The entry number to start listing from. Must be 1 or greater." },
      limit: { type: "integer", description: "The maximum number of entries to return." },
      depth: { type: "integer", description: "The maximum directory depth to traverse. Must be 1 or greater." },
    },
    required: ["dir_path"],
    additionalProperties: false,
  },
};

interface ListDirArgs {
  dir_path: string;
  offset?: number;
  limit?: number;
  depth?: number;
}

type EntryKind = "dir" | "file" | "symlink" | "other";
interface Entry {
  /** UTF-8 of the relative path with `/` separators: the sort key. */
  sortKey: Buffer;
  name: string;
  depth: number;
  kind: EntryKind;
}

const SUFFIX: Record<EntryKind, string> = { dir: "/", file: "", symlink: "@", other: "?" };
const fail = (message: string): FunctionCallError => FunctionCallError.respondToModel(message);

const kindOf = (entry: DirEntry): EntryKind => (entry.kind === "directory" ? "dir" : entry.kind);

function cutChars(text: string): string {
  return text.length <= MAX_ENTRY_CHARS ? text : Array.from(text).slice(0, MAX_ENTRY_CHARS).join("");
}

// Rust sorts by bytes; comparing UTF-8 buffers keeps the Codex order for non-ASCII names.
const byBytes = (a: { sortKey: Buffer }, b: { sortKey: Buffer }): number => Buffer.compare(a.sortKey, b.sortKey);

/** Breadth-first walk to `depth` levels (Codex `collect_entries`); unreadable subdirectories are skipped. */
async function collectEntries(files: FileOps, root: string, depth: number, inv: ToolInvocation): Promise<Entry[]> {
  const entries: Entry[] = [];
  const queue: Array<{ dir: string; prefix: string; remaining: number }> = [
    { dir: root, prefix: "", remaining: depth },
  ];
  for (let next = queue.shift(); next; next = queue.shift()) {
    inv.signal.throwIfAborted();
    let dirents: DirEntry[];
    try {
      dirents = await files.readdir(next.dir);
    } catch (err) {
      if (next.dir === root) throw err;
      inv.turn.logger.debug({ err, dir: next.dir }, "list_dir skipped an unreadable directory");
      continue;
    }
    const level = next.prefix === "" ? 0 : next.prefix.split("/").length;
    const found = dirents.map((d) => {
      const relative = next.prefix === "" ? d.name : `${next.prefix}/${d.name}`;
      return {
        sortKey: Buffer.from(cutChars(relative)),
        name: cutChars(d.name),
        depth: level,
        kind: kindOf(d),
        path: join(next.dir, d.name),
        relative,
      };
    });
    found.sort(byBytes);
    for (const f of found) {
      if (f.kind === "dir" && next.remaining > 1)
        queue.push({ dir: f.path, prefix: f.relative, remaining: next.remaining - 1 });
      entries.push({ sortKey: f.sortKey, name: f.name, depth: f.depth, kind: f.kind });
    }
  }
  return entries;
}

async function checkDirectory(files: FileOps, path: string): Promise<void> {
  try {
    if ((await files.stat(path)).kind !== "directory")
      throw fail(`failed to read directory: ${path} is not a directory`);
  } catch (err) {
    if (err instanceof FunctionCallError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") throw fail(`failed to read directory: ${path} does not exist`);
    throw fail(`failed to read directory: ${errorMessage(err)}`);
  }
}

/** Codex `list_dir`: `Absolute path: ...`, then sorted entries indented by depth, paginated. */
export class ListDirHandler implements ToolHandler {
  readonly kind = "function" as const;

  policySubject(inv: ToolInvocation): PolicySubject {
    const path = (inv.args as ListDirArgs).dir_path;
    return { paths: [path], summary: `list_dir ${path}` };
  }

  async handle(inv: ToolInvocation): Promise<ToolOutput> {
    const { dir_path: path, offset = 1, limit = 25, depth = 2 } = inv.args as ListDirArgs;
    if (offset < 1) throw fail("offset must be a 1-indexed entry number");
    if (limit < 1) throw fail("limit must be greater than zero");
    if (depth < 1) throw fail("depth must be greater than zero");
    if (!isAbsolute(path)) throw fail("dir_path must be an absolute path");
    await environmentOf(inv.turn).checkRead(path);
    const files = filesOf(inv.turn);
    await checkDirectory(files, path);

    let entries: Entry[];
    try {
      entries = await collectEntries(files, path, depth, inv);
    } catch (err) {
      if (inv.signal.aborted) throw err;
      throw fail(`failed to read directory: ${errorMessage(err)}`);
    }
    const lines = [`Absolute path: ${path}`];
    if (entries.length > 0) {
      entries.sort(byBytes);
      const start = offset - 1;
      if (start >= entries.length) throw fail("offset exceeds directory entry count");
      const end = Math.min(entries.length, start + limit);
      for (const e of entries.slice(start, end))
        lines.push(`${" ".repeat(e.depth * INDENT_SPACES)}${e.name}${SUFFIX[e.kind]}`);
      if (end < entries.length) lines.push(`More than ${end - start} entries found`);
    }
    return { kind: "function", body: lines.join("\n"), success: true };
  }
}

export interface ListDirToolConfig {
  /** Default true. */
  listDir?: boolean;
}

export const listDirToolFactory: ToolFactory<ListDirToolConfig> = (config) =>
  config.listDir === false ? [] : [{ spec: LIST_DIR_SPEC, handler: new ListDirHandler(), supportsParallel: true }];
