import type { ToolInvocation } from "../registry/index.js";
import { environmentOf } from "../sandbox/index.js";
import type { HookCallContext } from "./hooks.js";

/** What every hook of this call reads: the call, the turn's place, the session. */
export function hookContext<Ctx>(invocation: ToolInvocation<Ctx>, sessionId: string | undefined): HookCallContext {
  const { turn } = invocation;
  return {
    toolName: invocation.toolName,
    toolInput: invocation.args,
    toolUseId: invocation.callId,
    cwd: turn.cwd,
    environment: environmentOf(turn),
    signal: invocation.signal,
    logger: turn.logger,
    sessionId,
    transcriptPath: turn.transcriptPath,
    permissionMode: turn.permissions?.mode ?? "bypass",
  };
}
