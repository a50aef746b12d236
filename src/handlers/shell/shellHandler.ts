import type { ToolPayload } from "../../protocol/index.js";
import { ExecHandler, type ExecRequest } from "./execHandler.js";

/** Arguments of a `shell` function call (validated against `SHELL_SPEC`). */
export interface ShellArgs {
  command: string[];
  workdir?: string;
  timeout_ms?: number;
}

/**
 * `shell`: runs `command` directly (no shell). Also answers `local_shell_call` items, whose
 * parameters arrive already parsed (and may carry `env`).
 */
export class ShellHandler<Ctx = unknown> extends ExecHandler<Ctx> {
  override matchesKind(payload: ToolPayload): boolean {
    return payload.kind === "local_shell" || super.matchesKind(payload);
  }

  protected request(payload: ToolPayload, args: unknown): ExecRequest {
    if (payload.kind === "local_shell") {
      const { command, workdir, timeoutMs, env } = payload.params;
      return {
        argv: command,
        ...(workdir !== undefined && { workdir }),
        ...(timeoutMs !== undefined && { timeoutMs }),
        ...(env && { env }),
      };
    }
    const { command, workdir, timeout_ms: timeoutMs } = args as ShellArgs;
    return { argv: command, ...(workdir !== undefined && { workdir }), ...(timeoutMs !== undefined && { timeoutMs }) };
  }
}
