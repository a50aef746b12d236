import type { ToolOutput } from "../protocol/index.js";
import type { ToolInvocation } from "./handler.js";

/**
 * Wraps a handler, onion-style (DESIGN section 11): the first `use` is the outermost.
 * `next()` goes on with the same arguments; `next(args)` with these (validated again against
 * the tool's schema; inner layers see an invocation carrying them). A middleware may answer
 * without calling `next`, or transform the output.
 */
export type ToolMiddleware<Ctx = unknown> = (
  inv: ToolInvocation<Ctx>,
  next: (args?: unknown) => Promise<ToolOutput>,
) => Promise<ToolOutput>;
