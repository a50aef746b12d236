import { type ToolPayload, FunctionCallError, type ToolOutput } from "../../protocol/index.js";
import type { PolicySubject, ToolFactory, ToolHandler, ToolInvocation } from "../../registry/index.js";
import { checkWriteOrEscalate, environmentOf } from "../../sandbox/index.js";
import { applyPatch, patchPaths } from "./applyPatch.js";
import { APPLY_PATCH_FREEFORM_SPEC, APPLY_PATCH_FUNCTION_SPEC } from "./definition.js";
import { parsePatch, PatchParseError, type Hunk } from "./parser.js";

const HUNK_LETTER = { add: "A", delete: "D", update: "M" } as const;
import { PatchApplyError } from "./errors.js";

/** The patch text: the raw input of a custom call, or `input` of a function call. */
function patchText(inv: ToolInvocation): string {
  if (inv.payload.kind === "custom") return inv.payload.input;
  const input = (inv.args as { input?: unknown } | null)?.input;
  if (typeof input !== "string") {
    // Reached when a function call meets the freeform spec, which has no schema to check it.
    throw FunctionCallError.respondToModel("invalid arguments for apply_patch: /input must be a string");
  }
  return input;
}

/**
 * `apply_patch`: edits files with a patch in Codex's format, all or nothing. Mutating (waits for
 * the turn's gate) and exclusive. Paths resolve against the turn's `cwd`.
 */
export class ApplyPatchHandler implements ToolHandler {
  readonly kind = "function" as const;

  matchesKind(payload: ToolPayload): boolean {
    return payload.kind === "custom" || payload.kind === "function";
  }

  isMutating(): boolean {
    return true;
  }

  /** Every path the patch touches (move targets included); none when it does not parse. */
  policySubject(inv: ToolInvocation): PolicySubject {
    let hunks: Hunk[];
    try {
      hunks = parsePatch(patchText(inv));
    } catch {
      return { paths: [], summary: "apply_patch (a patch that does not parse)" };
    }
    const paths = patchPaths(hunks);
    const lines = hunks.map(
      (h) => `${HUNK_LETTER[h.type]} ${h.path}${h.type === "update" && h.movePath ? ` -> ${h.movePath}` : ""}`,
    );
    return { paths, summary: `apply_patch\n${lines.join("\n")}` };
  }

  async handle(inv: ToolInvocation): Promise<ToolOutput> {
    const patch = patchText(inv);
    const { turn } = inv;
    const env = environmentOf(turn);
    // Every target inside the writable roots, or a person's allow, before any byte is written.
    const beforeWrite = (paths: string[]): Promise<void> =>
      checkWriteOrEscalate(env, paths, { cwd: turn.cwd, escalate: inv.escalate?.bind(inv) });
    try {
      const result = await applyPatch(patch, { cwd: turn.cwd, signal: inv.signal, logger: turn.logger, beforeWrite });
      inv.turn.logger.debug(
        { callId: inv.callId, added: result.added, modified: result.modified, deleted: result.deleted },
        "apply_patch applied",
      );
      return { kind: "function", body: result.summary };
    } catch (err) {
      if (err instanceof PatchParseError || err instanceof PatchApplyError) {
        return { kind: "function", body: err.message, success: false };
      }
      throw err;
    }
  }
}

export interface ApplyPatchToolConfig {
  /** "freeform" (default): a custom tool with the Lark grammar; "function": `{ input }`; false: none. */
  applyPatch?: "freeform" | "function" | false;
}

/** `ToolsConfig.applyPatch`: "freeform" (default) a custom tool with the Lark grammar, "function" `{ input }`, false none. */
export const applyPatchToolFactory: ToolFactory<ApplyPatchToolConfig> = (config) => {
  const form = config.applyPatch ?? "freeform";
  if (form === false) return [];
  if (form !== "freeform" && form !== "function") {
    throw new TypeError(`ToolsConfig.applyPatch must be "freeform", "function" or false, got ${JSON.stringify(form)}`);
  }
  const spec = form === "function" ? APPLY_PATCH_FUNCTION_SPEC : APPLY_PATCH_FREEFORM_SPEC;
  return [{ spec, handler: new ApplyPatchHandler(), supportsParallel: false }];
};
