import type { ToolOutput } from "../../protocol/index.js";
import type { FileReadLedger, ToolInvocation } from "../../registry/index.js";
import { emitEvent } from "../../turn/index.js";
import { now } from "../../util/index.js";
import { applyPatchFor, type ApplyPatchOutcome } from "../apply_patch/index.js";
import { formatExecOutput } from "./format.js";
import type { HeadTailBuffer } from "./outputBuffer.js";
import { OutputDeltas } from "./outputDeltas.js";

/**
 * apply_patch run as a command by `shell` / `shell_command`: applied as the apply_patch tool
 * applies it (the sandbox's writable roots checked before any write, a person asked to write
 * outside them), answered in the command's format (the exec header: exit code 0 or 1, wall
 * time, then apply_patch's text as the output), between the same begin and end events (and an
 * output delta) as a command. `capture` keeps the text for an aborted call's output.
 */
export async function applyPatchAsCommand<Ctx>(
  inv: ToolInvocation<Ctx>,
  argv: string[],
  run: {
    patch: string;
    cwd: string;
    capture: HeadTailBuffer;
    timeoutMs: number;
    fileReads?: FileReadLedger | undefined;
  },
): Promise<ToolOutput> {
  const { turn, callId, toolName } = inv;
  const { cwd, capture } = run;
  const started = now();
  const end = (exitCode: number | null, durationMs: number): void => {
    emitEvent(turn, {
      type: "exec_command_end",
      callId,
      toolName,
      exitCode,
      durationMs,
      timedOut: false,
      aborted: false,
    });
  };
  emitEvent(turn, { type: "exec_command_begin", callId, toolName, command: argv, cwd });
  let outcome: ApplyPatchOutcome;
  try {
    outcome = await applyPatchFor(inv, run.patch, cwd, run.fileReads);
  } catch (err) {
    end(null, now() - started); // the begin event pairs with an end, as for a command that could not start
    throw err;
  }
  const durationMs = now() - started;
  const exitCode = outcome.success ? 0 : 1;
  const chunk = Buffer.from(outcome.text, "utf8");
  capture.append(chunk);
  if (turn.onEvent) {
    const deltas = new OutputDeltas(turn, callId, toolName);
    deltas.push("stdout", chunk);
    deltas.end();
  }
  end(exitCode, durationMs);
  turn.logger.debug({ callId, toolName, exitCode, cwd }, "apply_patch run as a command was applied in place");
  const summary = { exitCode, durationMs, timedOut: false, timeoutMs: run.timeoutMs };
  const body = formatExecOutput(summary, capture.snapshot(), turn.truncationPolicy);
  return { kind: "function", body, success: outcome.success, bounded: true };
}
