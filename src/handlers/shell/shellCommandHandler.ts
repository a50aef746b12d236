import type { ToolPayload } from "../../protocol/index.js";
import { userShell } from "./exec.js";
import { ExecHandler, type ExecRequest } from "./execHandler.js";

/** Arguments of a `shell_command` call (validated against `SHELL_COMMAND_SPEC`). */
export interface ShellCommandArgs {
  command: string;
  workdir?: string;
  login?: boolean;
  timeout_ms?: number;
}

/**
 * `shell_command`: runs a script with the user's shell, `-lc` (login, the default) or `-c`.
 * Classified like Codex: `[shell, -lc, script]` is safe when every plain command is.
 */
export class ShellCommandHandler<Ctx = unknown> extends ExecHandler<Ctx> {
  protected request(_payload: ToolPayload, args: unknown): ExecRequest {
    const { command, workdir, login, timeout_ms: timeoutMs } = args as ShellCommandArgs;
    return {
      argv: [userShell(), login === false ? "-c" : "-lc", command],
      script: command,
      ...(workdir !== undefined && { workdir }),
      ...(timeoutMs !== undefined && { timeoutMs }),
    };
  }
}
