import {
  type ApplyPatchOperation,
  type ToolPayload,
  FunctionCallError,
  type ToolOutput,
} from "../../protocol/index.js";
import type { FileReadLedger, PolicySubject, ToolFactory, ToolHandler, ToolInvocation } from "../../registry/index.js";
import { APPLY_PATCH_FREEFORM_SPEC, APPLY_PATCH_FUNCTION_SPEC } from "./definition.js";
import { applyPatchFor, patchPolicySubject } from "./toolCall.js";

/**
 * A Responses `apply_patch_call` operation as a patch in Codex's format: a V4A diff is the body
 * of an `Add File` (every line `+`) or `Update File` section.
 */
export function operationPatch(op: ApplyPatchOperation): string {
  const body = op.type === "delete_file" ? "" : op.diff.replace(/\r?\n$/, "");
  const header =
    op.type === "create_file"
      ? `*** Add File: ${op.path}`
      : op.type === "update_file"
        ? `*** Update File: ${op.path}`
        : `*** Delete File: ${op.path}`;
  return ["*** Begin Patch", header, ...(body === "" ? [] : [body]), "*** End Patch"].join("\n");
}

/** The patch text: the raw input of a custom call, `input` of a function call, or an `apply_patch_call`'s operation. */
function patchText(inv: ToolInvocation): string {
  if (inv.payload.kind === "custom") return inv.payload.input;
  if (inv.payload.kind === "apply_patch_call") return operationPatch(inv.payload.operation);
  const input = (inv.args as { input?: unknown } | null)?.input;
  if (typeof input !== "string") {
    // Reached when a function call meets the freeform spec, which has no schema to check it.
    throw FunctionCallError.respondToModel("invalid arguments for apply_patch: /input must be a string");
  }
  return input;
}

/**
 * `apply_patch`: edits files with a patch in Codex's format, all or nothing. Mutating (waits for
 * the turn's gate) and exclusive. Paths resolve against the turn's `cwd`. With the session's
 * `fileReads`, the files it writes count as seen.
 */
export class ApplyPatchHandler implements ToolHandler {
  readonly kind = "function" as const;

  constructor(private readonly fileReads?: FileReadLedger) {}

  matchesKind(payload: ToolPayload): boolean {
    return payload.kind === "custom" || payload.kind === "function" || payload.kind === "apply_patch_call";
  }

  isMutating(): boolean {
    return true;
  }

  /** Every path the patch touches (move targets included); none when it does not parse. */
  policySubject(inv: ToolInvocation): PolicySubject {
    let patch: string;
    try {
      patch = patchText(inv);
    } catch {
      return { paths: [], summary: "apply_patch (a patch that does not parse)" };
    }
    return patchPolicySubject(patch);
  }

  async handle(inv: ToolInvocation): Promise<ToolOutput> {
    const { text, answer, success } = await applyPatchFor(inv, patchText(inv), inv.turn.cwd, this.fileReads);
    // A native apply_patch_call_output carries its own status: it gets the plain result, not
    // Codex's run-shaped answer.
    const body = inv.payload.kind === "apply_patch_call" ? text : answer;
    return success ? { kind: "function", body } : { kind: "function", body, success: false };
  }
}

export interface ApplyPatchToolConfig {
  /** "freeform" (default): a custom tool with the Lark grammar; "function": `{ input }`; false: none. */
  applyPatch?: "freeform" | "function" | false;
}

/** `ToolsConfig.applyPatch`: "freeform" (default) a custom tool with the Lark grammar, "function" `{ input }`, false none. */
export const applyPatchToolFactory: ToolFactory<ApplyPatchToolConfig> = (config, ctx) => {
  const form = config.applyPatch ?? "freeform";
  if (form === false) return [];
  if (form !== "freeform" && form !== "function") {
    throw new TypeError(`ToolsConfig.applyPatch must be "freeform", "function" or false, got ${JSON.stringify(form)}`);
  }
  const spec = form === "function" ? APPLY_PATCH_FUNCTION_SPEC : APPLY_PATCH_FREEFORM_SPEC;
  return [{ spec, handler: new ApplyPatchHandler(ctx.fileReads), supportsParallel: false }];
};
