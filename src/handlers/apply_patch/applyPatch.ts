import { resolve } from "node:path";
import type { Logger } from "pino";
import type { FileOps } from "../../protocol/index.js";
import { localFileOps } from "../../sandbox/index.js";
import { defaultLogger } from "../../turn/index.js";
import { ioErrorText } from "../../util/index.js";
import { commitChanges, errCode } from "./commit.js";
import { parsePatch, type Hunk } from "./parser.js";
import { PatchApplyError } from "./errors.js";
import { applyChunks } from "./textFile.js";

export interface ApplyPatchResult {
  /** Paths as the patch wrote them. */
  added: string[];
  modified: string[];
  deleted: string[];
  /** `Success. Updated the following files:` then `A path` / `M path` / `D path` lines. */
  summary: string;
}

export interface ApplyPatchOptions {
  /** Relative paths in the patch resolve against it. */
  cwd: string;
  /** Checked before the first write; once writing has begun the patch is finished. */
  signal?: AbortSignal;
  logger?: Logger;
  /**
   * Once the patch is planned and before anything is written, with every path it would write,
   * delete or move (as the patch wrote them): throws to refuse the patch (the sandbox's roots),
   * or resolves with the file operations the writes go through instead of `files` (a person
   * allowed writing outside the sandbox).
   */
  beforeWrite?: (paths: string[]) => Promise<FileOps | undefined>;
  /**
   * Where files are read and written (default: this process's own file system); the turn's
   * environment's, so under bubblewrap the kernel resolves every path inside the sandbox.
   */
  files?: FileOps;
}

// ignoreBOM keeps a byte-order mark in the text, so it survives the rewrite.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * The file system as the patch sees it while it is planned: what earlier hunks of the same
 * patch wrote (null: deleted), over what is on disk. Nothing is written while planning.
 */
class PlannedTree {
  readonly changes = new Map<string, string | null>();

  constructor(private readonly files: FileOps) {}

  async readForUpdate(path: string): Promise<string> {
    const planned = this.changes.get(path);
    if (planned !== undefined) {
      if (planned === null)
        throw new PatchApplyError(`Failed to read file to update ${path}: ${ioErrorText({ code: "ENOENT" })}`);
      return planned;
    }
    let data: Buffer;
    try {
      data = (await this.files.read(path)).data; // a FIFO or device refused at once
    } catch (err) {
      throw new PatchApplyError(`Failed to read file to update ${path}: ${ioErrorText(err)}`);
    }
    try {
      return utf8.decode(data);
    } catch {
      throw new PatchApplyError(`Failed to read file to update ${path}: stream did not contain valid UTF-8`);
    }
  }

  async checkDeletable(path: string): Promise<void> {
    const planned = this.changes.get(path);
    if (planned !== undefined) {
      if (planned === null) throw new PatchApplyError(`Failed to read ${path}: ${ioErrorText({ code: "ENOENT" })}`);
      return;
    }
    const reason = await this.files.lstat(path).then(
      (info) =>
        info.kind === "directory"
          ? `path \`${path}\` is not a file`
          : info.kind === "other"
            ? `${path} is not a regular file`
            : undefined,
      (err: unknown) => ioErrorText(err),
    );
    if (reason !== undefined) throw new PatchApplyError(`Failed to read ${path}: ${reason}`);
  }

  /** A directory in the way is caught now; rarer write failures surface at commit and roll back. */
  async checkWritable(path: string): Promise<void> {
    if (this.changes.has(path)) return;
    const kind = await this.files.lstat(path).then(
      (info) => info.kind,
      (err: unknown) => (errCode(err) !== "ENOENT" && errCode(err) !== "ENOTDIR" ? "blocked" : undefined),
    );
    // Caught before anything is written (all or nothing), worded as Codex's failed write.
    if (kind === "other")
      throw new PatchApplyError(`Failed to write file ${path}: ${path} is not a regular file`, { stage: "write" });
    if (kind === "directory" || kind === "blocked")
      throw new PatchApplyError(`Failed to write file ${path}`, { stage: "write" });
  }
}

async function planHunk(tree: PlannedTree, hunk: Hunk, cwd: string, result: ApplyPatchResult): Promise<void> {
  const path = resolve(cwd, hunk.path);
  switch (hunk.type) {
    case "add":
      await tree.checkWritable(path);
      tree.changes.set(path, hunk.contents);
      result.added.push(hunk.path);
      return;
    case "delete":
      await tree.checkDeletable(path);
      tree.changes.set(path, null);
      result.deleted.push(hunk.path);
      return;
    case "update": {
      const contents = applyChunks(await tree.readForUpdate(path), hunk.chunks, path);
      if (hunk.movePath === undefined) {
        tree.changes.set(path, contents);
        result.modified.push(hunk.path);
        return;
      }
      const dest = resolve(cwd, hunk.movePath);
      await tree.checkWritable(dest);
      // Source first, so a move onto itself keeps the file.
      tree.changes.set(path, null);
      tree.changes.set(dest, contents);
      result.modified.push(hunk.movePath);
    }
  }
}

/** Every path a patch touches, move destinations included, as the patch wrote them. */
export function patchPaths(hunks: readonly Hunk[]): string[] {
  return hunks.flatMap((h) => (h.type === "update" && h.movePath ? [h.path, h.movePath] : [h.path]));
}

function summarize({ added, modified, deleted }: Omit<ApplyPatchResult, "summary">): string {
  const lines = [
    "Success. Updated the following files:",
    ...added.map((p) => `A ${p}`),
    ...modified.map((p) => `M ${p}`),
    ...deleted.map((p) => `D ${p}`),
  ];
  return `${lines.join("\n")}\n`;
}

/**
 * Applies a patch in Codex's format, all or nothing: every hunk is parsed and matched against
 * the files (as earlier hunks of the same patch leave them) before anything is written; then
 * all files are written, and a failed write restores every file already changed.
 * Throws `PatchParseError` or `PatchApplyError` with the text the model should see.
 */
export async function applyPatch(patch: string, opts: ApplyPatchOptions): Promise<ApplyPatchResult> {
  const hunks = parsePatch(patch);
  if (hunks.length === 0) throw new PatchApplyError("patch rejected: empty patch", { stage: "rejected" });
  const files = opts.files ?? localFileOps;
  const tree = new PlannedTree(files);
  const result: ApplyPatchResult = { added: [], modified: [], deleted: [], summary: "" };
  for (const hunk of hunks) await planHunk(tree, hunk, opts.cwd, result);
  const writer = (await opts.beforeWrite?.(patchPaths(hunks))) ?? files;
  if (opts.signal?.aborted) {
    throw new PatchApplyError("apply_patch was aborted before any file was changed", { stage: "rejected" });
  }
  await commitChanges(writer, tree.changes, opts.logger ?? defaultLogger());
  result.summary = summarize(result);
  return result;
}
