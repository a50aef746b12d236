import type { FunctionToolSpec } from "../../protocol/index.js";
import type { ToolFactory } from "../../registry/index.js";
import { EXEC_COMMAND_SPEC, WRITE_STDIN_SPEC } from "./definition.js";
import { ExecCommandHandler } from "./execCommandHandler.js";
import { withIdleYield } from "./idleYield.js";
import { ExecSessionManager } from "./manager.js";
import { WriteStdinHandler } from "./writeStdinHandler.js";

export interface UnifiedExecToolConfig {
  /** `"unified_exec"` offers `exec_command` + `write_stdin` (the other values: the shell tools). */
  shell?: "shell" | "shell_command" | "unified_exec" | false;
  /** Sessions kept at once; default 64 (the least recently used closed first). */
  maxExecSessions?: number;
  /**
   * Offer `yield: "until_idle"` on both tools (beyond Codex): a call returns once its output
   * has gone quiet for 20 ms instead of waiting the whole `yield_time_ms`. Default false.
   */
  execIdleYield?: boolean;
}

/**
 * `exec_command` and `write_stdin` when `config.shell` is `"unified_exec"`, sharing one session
 * manager that lives as long as the router (`router.close()` kills its sessions).
 */
export const unifiedExecToolFactory: ToolFactory<UnifiedExecToolConfig> = (config, ctx) => {
  if (config.shell !== "unified_exec") return [];
  const sessions = new ExecSessionManager(config.maxExecSessions, ctx.spill);
  const close = (): Promise<void> => sessions.close();
  const offered = config.execIdleYield === true ? withIdleYield : (spec: FunctionToolSpec) => spec;
  return [
    {
      spec: offered(EXEC_COMMAND_SPEC),
      handler: new ExecCommandHandler(sessions, ctx.fileReads),
      supportsParallel: true,
      close,
    },
    { spec: offered(WRITE_STDIN_SPEC), handler: new WriteStdinHandler(sessions), supportsParallel: true, close },
  ];
};

export { EXEC_COMMAND_SPEC, WRITE_STDIN_SPEC } from "./definition.js";
export { ExecCommandHandler, type ExecCommandArgs } from "./execCommandHandler.js";
export { WriteStdinHandler, type WriteStdinArgs } from "./writeStdinHandler.js";
export { ExecSessionManager } from "./manager.js";
