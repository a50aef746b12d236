import { FunctionCallError, type ToolOutput } from "../../protocol/index.js";
import type { PolicySubject, ToolHandler, ToolInvocation } from "../../registry/index.js";
import { now } from "../../util/index.js";
import { chunkBudget, clampYield, formatUnifiedExec } from "./format.js";
import type { ExecSessionManager } from "./manager.js";

/** Arguments of a `write_stdin` call (validated against `WRITE_STDIN_SPEC`). */
export interface WriteStdinArgs {
  session_id: number;
  chars?: string;
  yield_time_ms?: number;
  max_output_tokens?: number;
}

const DEFAULT_YIELD_MS = 250;
// Codex 0.169: an empty poll waits longer, 5 s by default, between 5 s and 300 s.
const DEFAULT_POLL_MS = 5_000;
const MAX_POLL_MS = 300_000;
const pollWait = (ms: number | undefined): number =>
  Math.min(Math.max(ms ?? DEFAULT_POLL_MS, DEFAULT_POLL_MS), MAX_POLL_MS);
const fail = (message: string): FunctionCallError => FunctionCallError.respondToModel(`write_stdin failed: ${message}`);

/**
 * Codex `write_stdin`: sends `chars` to a session's terminal (empty: just polls) and returns the
 * output it printed since the last read, within `yield_time_ms`. Mutating (it can type
 * anything). An aborted call leaves the session running.
 */
export class WriteStdinHandler implements ToolHandler {
  readonly kind = "function" as const;

  constructor(private readonly sessions: ExecSessionManager) {}

  isMutating(): boolean {
    return true;
  }

  policySubject(inv: ToolInvocation): PolicySubject {
    const { session_id: id, chars = "" } = inv.args as WriteStdinArgs;
    return { summary: `write_stdin ${id}: ${JSON.stringify(chars)}` };
  }

  async handle(inv: ToolInvocation): Promise<ToolOutput> {
    const {
      session_id: id,
      chars = "",
      yield_time_ms: yieldMs,
      max_output_tokens: maxOutputTokens,
    } = inv.args as WriteStdinArgs;
    const session = this.sessions.get(id);
    if (!session) throw fail(`Unknown process id ${id}`);
    const started = now();
    return session.serialize(async () => {
      if (chars !== "" && !session.write(chars)) {
        throw fail(
          session.tty
            ? `process ${id} has exited`
            : "stdin is closed for this session; rerun exec_command with tty=true to keep stdin open",
        );
      }
      const wait = chars === "" ? pollWait(yieldMs) : clampYield(yieldMs ?? DEFAULT_YIELD_MS);
      const chunk = await session.read(wait, inv.signal, chunkBudget(maxOutputTokens, inv.turn.truncationPolicy));
      if (chunk.exitCode !== undefined) this.sessions.remove(session);
      const body = formatUnifiedExec(chunk, {
        wallMs: now() - started,
        sessionId: id,
        maxOutputTokens,
        policy: inv.turn.truncationPolicy,
      });
      return { kind: "function", body, success: chunk.exitCode === undefined || chunk.exitCode === 0, bounded: true };
    });
  }
}
