import {
  FunctionCallError,
  responseItemFor,
  texts,
  type OutputBody,
  type ResponseInputItem,
  type ToolCall,
} from "../protocol/index.js";
import { truncateBody, type TurnContext } from "../turn/index.js";
import { errorText } from "../util/index.js";

/** Step h: the output item, bounded by the truncation policy unless the handler already did. */
export function answerItem(call: ToolCall, body: OutputBody, turn: TurnContext): ResponseInputItem {
  const bounded = body.bounded === true ? body.body : truncateBody(body.body, turn.truncationPolicy);
  return responseItemFor(call.callId, call.payload.kind, bounded, body.success !== false, body.shellCall);
}

/** A failure answer, bounded like every other output. */
export function failureItem(call: ToolCall, text: string, turn: TurnContext): ResponseInputItem {
  return responseItemFor(call.callId, call.payload.kind, truncateBody(text, turn.truncationPolicy), false);
}

/**
 * What the model reads for an error that is not `Fatal`: a `respondToModel` message verbatim,
 * `aborted by user` once the call was aborted, else `tool {name} failed: {message}` (and the
 * error, with its stack, goes to the log, not to the model).
 */
export function failureText(call: ToolCall, err: unknown, turn: TurnContext, aborted: boolean): string {
  if (FunctionCallError.isRespondToModel(err)) return errorText(err) ?? texts.toolFailed(call.toolName, undefined);
  if (aborted) return texts.abortedByUser;
  const message = errorText(err);
  try {
    turn.logger.error({ err, callId: call.callId, toolName: call.toolName }, "tool handler threw");
  } catch {
    // A thrown value the logger cannot serialize: the model still gets its answer.
    turn.logger.error({ err: message, callId: call.callId, toolName: call.toolName }, "tool handler threw");
  }
  return texts.toolFailed(call.toolName, message);
}
