import type { ToolOutput } from "../protocol/index.js";
import { validateArguments, type RegisteredTool } from "../registry/index.js";
import type { Invocation } from "./invocation.js";

/**
 * The middleware chain around the handler, outermost first. `next(args)` validates the new
 * arguments against the tool's schema (a violation answers `invalid arguments for ...` and
 * the handler never starts) and hands inner layers an invocation carrying them.
 */
export function runMiddleware<Ctx>(tool: RegisteredTool<Ctx>, invocation: Invocation<Ctx>): Promise<ToolOutput> {
  const chain = tool.middleware;
  const step = (i: number, inv: Invocation<Ctx>): Promise<ToolOutput> => {
    const mw = chain[i];
    if (!mw) return tool.handler.handle(inv);
    return mw(inv, async (args?: unknown) => {
      if (args === undefined) return step(i + 1, inv);
      validateArguments(inv.toolName, args, tool.validate);
      return step(i + 1, inv.withArgs(args));
    });
  };
  return step(0, invocation);
}
