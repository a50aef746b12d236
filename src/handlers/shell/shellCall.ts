import type { ShellCallParams } from "../../protocol/index.js";
import { budgetBytes, type TruncationPolicy } from "../../turn/index.js";
import { userShell } from "./exec.js";
import type { ExecRequest } from "./execHandler.js";

/**
 * A Responses `shell_call`'s commands, each run by the user's shell with `-c`: not a login
 * shell, as OpenAI's reference executor runs them, since a profile (nvm, pyenv) can cost
 * seconds per command and the turn's environment already carries the user's PATH.
 */
export function shellCallRequests(params: ShellCallParams, defaultTimeoutMs: number): ExecRequest[] {
  const timeoutMs = params.timeoutMs ?? defaultTimeoutMs;
  return params.commands.map((command) => ({ argv: [userShell(), "-c", command], script: command, timeoutMs }));
}

/**
 * What each stream of each command may keep: half the turn's budget (stdout and stderr share a
 * command's), or `max_output_length` when smaller (counted in UTF-8 bytes: characters for ASCII).
 */
export function shellStreamBudget(policy: TruncationPolicy, maxOutputLength: number | undefined): TruncationPolicy {
  const half = Math.max(1, Math.floor(budgetBytes(policy) / 2));
  return { mode: "bytes", limit: maxOutputLength === undefined ? half : Math.min(half, maxOutputLength) };
}
