import { spawn } from "node:child_process";
import type { ToolInvocation, TurnContext } from "../../src/index.js";

/** The baseline of every command bench: `true` by a bare `child_process.spawn`, its pipes drained. */
export function rawTrue(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("true", [], { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.resume();
    child.stderr.resume();
    child.once("error", reject);
    child.once("close", () => {
      resolve();
    });
  });
}

/** A `shell` call of `command` in `turn`, for the handler called directly. */
export function shellInvocation(command: string[], turn: TurnContext): ToolInvocation {
  const args = { command };
  return {
    callId: "bench",
    toolName: "shell",
    payload: { kind: "function", arguments: JSON.stringify(args) },
    args,
    signal: new AbortController().signal,
    turn,
    context: undefined,
  };
}
