import type { ExecEnvironment } from "../../protocol/index.js";
import type { ToolInvocation } from "../../registry/index.js";
import { runCommand, type RunResult } from "../../sandbox/index.js";
import { emitEvent } from "../../turn/index.js";
import { now } from "../../util/index.js";
import { OutputDeltas } from "./outputDeltas.js";
import { HARDENED_GIT_ENV, hardenKnownSafeGit } from "./safeGit.js";

/** One command of a shell tool, where it runs: `sandboxed: false` is an approved escalation. */
export interface CommandRun {
  argv: string[];
  env?: Record<string, string> | undefined;
  cwd: string;
  sandboxed: boolean;
}

/**
 * Runs one command between its `exec_command_begin` and `exec_command_end` events (an end also
 * for a command that could not start), streaming its output as deltas and to `onOutput`; a
 * known-safe git command runs hardened (safeGit.ts).
 */
export async function runWithEvents<Ctx>(
  inv: ToolInvocation<Ctx>,
  env: ExecEnvironment,
  run: CommandRun,
  opts: { timeoutMs: number; killGraceMs: number | undefined },
  onOutput: (stream: "stdout" | "stderr", chunk: Buffer) => void,
): Promise<RunResult> {
  const { turn, callId, toolName } = inv;
  const { cwd, sandboxed } = run;
  const deltas = turn.onEvent ? new OutputDeltas(turn, callId, toolName) : undefined;
  const started = now();
  emitEvent(turn, { type: "exec_command_begin", callId, toolName, command: run.argv, cwd });
  let result: RunResult;
  try {
    const safe = hardenKnownSafeGit(run.argv);
    const { argv, hardened } = safe instanceof Promise ? await safe : safe;
    const vars = hardened ? { ...run.env, ...HARDENED_GIT_ENV } : run.env;
    result = await runCommand(
      env,
      { argv, cwd, ...(vars && { env: vars }), sandboxed },
      {
        timeoutMs: opts.timeoutMs,
        signal: inv.signal,
        killGraceMs: opts.killGraceMs,
        onOutput: (stream, chunk) => {
          onOutput(stream, chunk);
          deltas?.push(stream, chunk);
        },
      },
    );
  } catch (err) {
    emitEvent(turn, {
      type: "exec_command_end",
      callId,
      toolName,
      exitCode: null,
      durationMs: now() - started,
      timedOut: false,
      aborted: false,
    });
    throw err;
  }
  deltas?.end();
  emitEvent(turn, {
    type: "exec_command_end",
    callId,
    toolName,
    exitCode: result.exitCode,
    durationMs: result.durationMs,
    timedOut: result.timedOut,
    aborted: result.aborted,
  });
  turn.logger.debug(
    { callId, toolName, exitCode: result.exitCode, timedOut: result.timedOut, sandboxed },
    "command finished",
  );
  return result;
}
