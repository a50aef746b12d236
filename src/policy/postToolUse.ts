import { texts, type HookConfig, type OutputBody } from "../protocol/index.js";
import type { ToolInvocation } from "../registry/index.js";
import { hookContext } from "./hookCall.js";
import { hooksFor } from "./hooks.js";

/**
 * Step g: PostToolUse hooks may block what the model sees (the answer becomes their reason) or
 * add context to it. Returns the body to answer with, or the blocked text.
 */
export async function postToolUse<Ctx>(
  config: HookConfig,
  invocation: ToolInvocation<Ctx>,
  body: OutputBody,
  sessionId?: string,
): Promise<OutputBody | string> {
  const hooks = hooksFor(config);
  const { toolName } = invocation;
  const failed = body.success === false && hooks.has("PostToolUseFailure", toolName);
  if (!hooks.hasPost(toolName) && !failed) return body;
  const ctx = hookContext(invocation, sessionId);
  const additionalContext: string[] = [];
  if (hooks.hasPost(toolName)) {
    const post = await hooks.runPostToolUse({
      ...ctx,
      toolResponse: { output: body.body, success: body.success !== false },
    });
    if (post.block) return texts.postToolUseBlocked(post.block.reason);
    additionalContext.push(...post.additionalContext);
  }
  if (failed) additionalContext.push(...(await postToolUseFailure(config, invocation, bodyText(body), sessionId)));
  if (additionalContext.length === 0) return body;
  const extra = additionalContext.join("\n");
  const withContext: OutputBody["body"] =
    typeof body.body === "string" ? `${body.body}\n\n${extra}` : [...body.body, { type: "input_text", text: extra }];
  // A shell call's structured answer has no place for the context: it is answered as text.
  return { ...body, body: withContext, shellCall: undefined };
}

/**
 * Claude Code's PostToolUseFailure: after a call whose handler failed (threw, or answered
 * `success: false`), with the failure's text as `error`. Returns the context the hooks add for
 * the model (these hooks cannot block: the call already failed).
 */
export async function postToolUseFailure<Ctx>(
  config: HookConfig,
  invocation: ToolInvocation<Ctx>,
  error: string,
  sessionId: string | undefined,
): Promise<string[]> {
  const hooks = hooksFor(config);
  if (!hooks.has("PostToolUseFailure", invocation.toolName)) return [];
  return hooks.runPostToolUseFailure({ ...hookContext(invocation, sessionId), error });
}

/** The text of an answer (its text parts, for a content list). */
function bodyText(body: OutputBody): string {
  if (typeof body.body === "string") return body.body;
  return body.body.flatMap((part) => ("text" in part && typeof part.text === "string" ? [part.text] : [])).join("\n");
}
