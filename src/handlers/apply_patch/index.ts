export { ApplyPatchHandler, applyPatchToolFactory, operationPatch, type ApplyPatchToolConfig } from "./handler.js";
export { applyPatch, type ApplyPatchOptions, type ApplyPatchResult } from "./applyPatch.js";
export { applyPatchFor, patchPolicySubject, type ApplyPatchCaller, type ApplyPatchOutcome } from "./toolCall.js";
export { parseApplyPatchCommand, type ApplyPatchCommand } from "./shellCommand.js";
export { parsePatch, PatchParseError, type Hunk, type UpdateFileChunk, type ChunkLine } from "./parser.js";
export { PatchApplyError } from "./errors.js";
export { seekSequence } from "./seekSequence.js";
export {
  APPLY_PATCH_LARK_GRAMMAR,
  APPLY_PATCH_JSON_DESCRIPTION,
  APPLY_PATCH_FREEFORM_SPEC,
  APPLY_PATCH_FUNCTION_SPEC,
} from "./definition.js";
