import path from "node:path";
import type { FileReadLedger, PolicySubject } from "../../registry/index.js";
import {
  applyPatchFor,
  parseApplyPatchCommand,
  patchPolicySubject,
  type ApplyPatchCaller,
  type ApplyPatchOutcome,
} from "../apply_patch/index.js";

/**
 * apply_patch run as a command (`["apply_patch", PATCH]`, `bash -lc "cd DIR && apply_patch
 * <<'EOF' ..."`): the shell tools apply the patch themselves, as the apply_patch tool would,
 * instead of running it (Codex intercepts it the same way). See `parseApplyPatchCommand`.
 */

/** `p` under `base`, kept relative when both are: an absolute `p` stays as it is. */
function under(base: string, p: string): string {
  return path.isAbsolute(p) ? p : path.join(base, p);
}

/** The patch and the directory it applies in (`cwd`, then `cd DIR`), when `argv` is apply_patch. */
export function interceptedApplyPatch(
  argv: readonly string[],
  cwd: string,
): { patch: string; cwd: string } | undefined {
  const command = parseApplyPatchCommand(argv);
  if (command === undefined) return undefined;
  return { patch: command.patch, cwd: command.dir === undefined ? cwd : path.resolve(cwd, command.dir) };
}

/**
 * For a command handler (`exec_command`): when `argv` is apply_patch, applies it in `cwd` (the
 * command's resolved working directory) and returns what apply_patch answers; otherwise
 * undefined, and the command runs as usual.
 */
export async function interceptApplyPatch(
  inv: ApplyPatchCaller,
  argv: readonly string[],
  cwd: string,
  fileReads?: FileReadLedger,
): Promise<ApplyPatchOutcome | undefined> {
  const intercepted = interceptedApplyPatch(argv, cwd);
  if (intercepted === undefined) return undefined;
  return applyPatchFor(inv, intercepted.patch, intercepted.cwd, fileReads);
}

/**
 * The policy subject of an intercepted call: the apply_patch tool's (`asTool: "apply_patch"`:
 * rules for apply_patch judge it, and it is a file edit), its paths placed under the call's
 * `workdir` and `cd DIR` as written, so that they resolve against the turn's cwd. Undefined
 * when `argv` is not apply_patch.
 */
export function applyPatchCommandSubject(argv: readonly string[], workdir?: string): PolicySubject | undefined {
  const command = parseApplyPatchCommand(argv);
  if (command === undefined) return undefined;
  const base = under(workdir ?? "", command.dir ?? "");
  return { ...patchPolicySubject(command.patch, (p) => under(base, p)), asTool: "apply_patch" };
}
