import type { ToolInvocation } from "../../registry/index.js";
import { OutputDeltas } from "../shell/index.js";
import type { ExecSession, SessionChunk } from "./session.js";

/**
 * Runs `read` of a session while what the session prints streams as this call's
 * `exec_command_output_delta` events (throttled as the shell tool's are; a terminal merges its
 * streams, so all of it is stdout, as in Codex), the last of them sent before `read` returns.
 */
export async function readStreaming(
  session: ExecSession,
  inv: Pick<ToolInvocation, "turn" | "callId" | "toolName">,
  read: () => Promise<SessionChunk>,
): Promise<SessionChunk> {
  if (!inv.turn.onEvent) return read();
  const deltas = new OutputDeltas(inv.turn, inv.callId, inv.toolName);
  const stop = session.watch((chunk) => {
    deltas.push("stdout", chunk);
  });
  try {
    return await read();
  } finally {
    stop();
    deltas.end();
  }
}
