import { resolve } from "node:path";
import { SandboxDenial, type FileOps } from "../../protocol/index.js";
import { judgedWrites, type FileReadLedger, type PolicySubject, type ToolInvocation } from "../../registry/index.js";
import { checkWriteOrEscalate, environmentOf, filesOf } from "../../sandbox/index.js";
import { now } from "../../util/index.js";
import { applyPatch, patchPaths } from "./applyPatch.js";
import { PatchApplyError } from "./errors.js";
import { parsePatch, PatchParseError, type Hunk } from "./parser.js";

/** What applying a patch for a call needs of the call: its turn, its signal, its escalation. */
export type ApplyPatchCaller = Pick<ToolInvocation, "callId" | "turn" | "signal" | "escalate" | "landing">;

/** What the model reads. */
export interface ApplyPatchOutcome {
  /** The success summary, or why the patch failed (a command running apply_patch prints it). */
  text: string;
  /**
   * The apply_patch tool's answer as Codex 0.171 words it: a run's `Exit code`, `Wall time`
   * and `Output` around `text` when the patch was applied or failed writing; `text` alone when
   * it was refused before (verification, an empty patch, the sandbox).
   */
  answer: string;
  success: boolean;
  /** Refused before it ran (verification, an empty patch, the sandbox): `answer` is `text` alone. */
  refused: boolean;
}

/** Codex reports apply_patch as a run of the apply_patch command. */
const asRun = (exitCode: number, startedMs: number, output: string): string =>
  `Exit code: ${exitCode}\nWall time: ${Math.round((now() - startedMs) / 100) / 10} seconds\nOutput:\n${output}`;

const HUNK_LETTER = { add: "A", delete: "D", update: "M" } as const;

/**
 * Applies `patch` for a call, as the apply_patch tool does (and the shell tools when they
 * intercept `apply_patch` as a command): relative paths against `cwd`, all or nothing, every
 * target inside the writable roots of the turn's environment or allowed by a person
 * (`checkWriteOrEscalate`) before any byte is written. A patch that does not parse or apply,
 * and a write the sandbox refuses, are answers (`success: false`); anything else throws.
 * With the session's `fileReads`, the files it added or updated count as seen (edit_file may
 * change them without reading them first).
 */
export async function applyPatchFor(
  inv: ApplyPatchCaller,
  patch: string,
  cwd: string,
  fileReads?: FileReadLedger,
): Promise<ApplyPatchOutcome> {
  const { turn } = inv;
  const started = now();
  const env = environmentOf(turn);
  // The writes' file operations: the environment's, or the host's on a person's allow.
  let files = filesOf(turn);
  // Only where a path rule judged the patch to land (a link flipped since leads nowhere else).
  const beforeWrite = async (paths: string[]): Promise<FileOps> =>
    judgedWrites(
      (files = await checkWriteOrEscalate(env, paths, { cwd, escalate: inv.escalate?.bind(inv) })),
      inv.landing,
    );
  try {
    const result = await applyPatch(patch, { cwd, signal: inv.signal, logger: turn.logger, beforeWrite, files });
    turn.logger.debug(
      { callId: inv.callId, added: result.added, modified: result.modified, deleted: result.deleted },
      "apply_patch applied",
    );
    if (fileReads) {
      for (const p of [...result.added, ...result.modified]) await fileReads.recordWrite(files, resolve(cwd, p));
    }
    return { text: result.summary, answer: asRun(0, started, result.summary), success: true, refused: false };
  } catch (err) {
    if (err instanceof PatchParseError || (err instanceof PatchApplyError && err.stage === "verification")) {
      const text = `apply_patch verification failed: ${err.message}`;
      return { text, answer: text, success: false, refused: true };
    }
    if (err instanceof PatchApplyError && err.stage === "write") {
      return { text: err.message, answer: asRun(1, started, `${err.message}\n`), success: false, refused: false };
    }
    if (err instanceof PatchApplyError || err instanceof SandboxDenial) {
      return { text: err.message, answer: err.message, success: false, refused: true };
    }
    throw err;
  }
}

/**
 * What the policy stage judges a patch by: every path it touches (move targets included),
 * each passed through `locate` (the shell tools place them under the command's directory), and
 * `apply_patch` then an `A`/`M`/`D` line per file for a person. No paths when it does not parse.
 */
export function patchPolicySubject(patch: string, locate: (p: string) => string = (p) => p): PolicySubject {
  let hunks: Hunk[];
  try {
    hunks = parsePatch(patch);
  } catch {
    return { paths: [], summary: "apply_patch (a patch that does not parse)" };
  }
  const paths = patchPaths(hunks).map(locate);
  const lines = hunks.map((h) => {
    const move = h.type === "update" && h.movePath ? ` -> ${locate(h.movePath)}` : "";
    return `${HUNK_LETTER[h.type]} ${locate(h.path)}${move}`;
  });
  return { paths, summary: `apply_patch\n${lines.join("\n")}` };
}
