import type { FunctionToolSpec } from "../../protocol/index.js";

const maxOutputTokens = {
  type: "number",
  description: "Maximum number of tokens to return. Excess output will be truncated.",
};
const yieldTimeMs = { type: "number", description: "How long to wait (in milliseconds) for output before yielding." };

/** Codex `exec_command` (unified exec), its descriptions verbatim. */
export const EXEC_COMMAND_SPEC: FunctionToolSpec = {
  type: "function",
  annotations: { destructiveHint: true, openWorldHint: true },
  name: "exec_command",
  description: "Runs a command in a PTY, returning output or a session ID for ongoing interaction.",
  strict: false,
  parameters: {
    type: "object",
    properties: {
      cmd: { type: "string", description: "Shell command to execute." },
      workdir: {
        type: "string",
        description: "Optional working directory to run the command in; defaults to the turn cwd.",
      },
      shell: { type: "string", description: "Shell binary to launch. Defaults to the user's default shell." },
      login: { type: "boolean", description: "Whether to run the shell with -l/-i semantics. Defaults to true." },
      tty: {
        type: "boolean",
        description:
          "Whether to allocate a TTY for the command. Defaults to false (plain pipes); set to true to open a PTY and access TTY process.",
      },
      yield_time_ms: yieldTimeMs,
      max_output_tokens: maxOutputTokens,
    },
    required: ["cmd"],
    additionalProperties: false,
  },
};

/** Codex `write_stdin`. */
export const WRITE_STDIN_SPEC: FunctionToolSpec = {
  type: "function",
  annotations: { destructiveHint: true, openWorldHint: true },
  name: "write_stdin",
  description: "Writes characters to an existing unified exec session and returns recent output.",
  strict: false,
  parameters: {
    type: "object",
    properties: {
      session_id: { type: "number", description: "Identifier of the running unified exec session." },
      chars: { type: "string", description: "Bytes to write to stdin (may be empty to poll)." },
      yield_time_ms: yieldTimeMs,
      max_output_tokens: maxOutputTokens,
    },
    required: ["session_id"],
    additionalProperties: false,
  },
};
