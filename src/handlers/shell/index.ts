import type { ToolFactoryContext, ToolRegistration } from "../../registry/index.js";
import { ShellCommandHandler } from "./shellCommandHandler.js";
import { ShellHandler } from "./shellHandler.js";
import { SHELL_COMMAND_SPEC, SHELL_SPEC } from "./definition.js";

export const DEFAULT_EXEC_TIMEOUT_MS = 10_000;

export interface ShellToolConfig {
  /**
   * Default "shell" (plus the `local_shell` alias); "unified_exec" offers `exec_command` and
   * `write_stdin` instead (src/handlers/exec_command).
   */
  shell?: "shell" | "shell_command" | "unified_exec" | false;
  /** Default 10_000. */
  execTimeoutMs?: number;
  /** Strict policy: a shell call not known to be safe runs exclusively (DESIGN section 9). Default false. */
  shellNonSafeExclusive?: boolean;
}

/**
 * The shell tool `config.shell` selects: `shell` (default, also answering `local_shell_call`
 * items under the `local_shell` alias), `shell_command`, or none.
 */
export function shellToolFactory(config: ShellToolConfig, ctx?: ToolFactoryContext): ToolRegistration[] {
  const mode = config.shell ?? "shell";
  const options = {
    timeoutMs: config.execTimeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS,
    nonSafeExclusive: config.shellNonSafeExclusive ?? false,
    ...(ctx?.fileReads && { fileReads: ctx.fileReads }),
    ...(ctx?.spill && { spill: ctx.spill }),
  };
  switch (mode) {
    case false:
    case "unified_exec":
      return [];
    case "shell":
      return [
        { spec: SHELL_SPEC, handler: new ShellHandler(options), supportsParallel: true, aliases: ["local_shell"] },
      ];
    case "shell_command":
      return [{ spec: SHELL_COMMAND_SPEC, handler: new ShellCommandHandler(options), supportsParallel: true }];
    default:
      throw new TypeError(
        `ToolsConfig.shell must be "shell", "shell_command", "unified_exec" or false, got ${JSON.stringify(mode)}`,
      );
  }
}

export { ShellHandler, type ShellArgs } from "./shellHandler.js";
export { ShellCommandHandler, type ShellCommandArgs } from "./shellCommandHandler.js";
export { ExecHandler, MENTIONS_APPLY_PATCH, type ExecRequest, type ExecHandlerOptions } from "./execHandler.js";
export { SHELL_SPEC, SHELL_COMMAND_SPEC } from "./definition.js";
export { resolveWorkdir, resolveWorkdirIn, userShell } from "./exec.js";
export { interceptApplyPatch, interceptedApplyPatch, applyPatchCommandSubject } from "./applyPatchCommand.js";
export { HeadTailBuffer, MAX_CAPTURE_SIDE_BYTES } from "./outputBuffer.js";
export { OutputDeltas } from "./outputDeltas.js";
export { SpillingCapture } from "./spillCapture.js";
export { formatExecOutput, type ExecSummary } from "./format.js";
export {
  commandLine,
  isKnownSafeCommand,
  isShellScript,
  knownSafeOrLoad,
  parseShellLcPlainCommands,
  scriptNeedsParser,
} from "./safeCommand.js";
export { HARDENED_GIT_ENV, hardenKnownSafeGit } from "./safeGit.js";
