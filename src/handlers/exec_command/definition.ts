import type { FunctionToolSpec } from "../../protocol/index.js";

const maxOutputTokens = {
  type: "number",
  description: "Output token budget. Defaults to 10000 tokens; larger requests may be capped by policy.",
};

/**
 * Codex 0.171 `exec_command` (unified exec), its descriptions verbatim. `sandbox_permissions:
 * "require_escalated"` asks a person (a `sandbox_escalation` approval, escalation.ts) before the
 * command runs outside the sandbox.
 */
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
      justification: {
        type: "string",
        description: "User-facing approval question for `require_escalated`; omit otherwise.",
      },
      login: { type: "boolean", description: "Request login-shell startup. Omit to inherit." },
      max_output_tokens: maxOutputTokens,
      prefix_rule: {
        type: "array",
        description:
          'Reusable approval prefix for `cmd`, only with `sandbox_permissions: "require_escalated"`; for example ["git", "pull"].',
        items: { type: "string" },
      },
      sandbox_permissions: {
        type: "string",
        description:
          "Per-command sandbox override. Defaults to `use_default`; use `require_escalated` for unsandboxed execution.",
        enum: ["use_default", "require_escalated"],
      },
      shell: { type: "string", description: "Shell binary to launch. Defaults to the user's default shell." },
      tty: {
        type: "boolean",
        description: "True allocates a PTY for the command; false or omitted uses plain pipes.",
      },
      workdir: { type: "string", description: "Working directory for the command. Defaults to the turn cwd." },
      yield_time_ms: {
        type: "number",
        description: "Wait before yielding output. Defaults to 10000 ms; effective range is 250-30000 ms.",
      },
    },
    required: ["cmd"],
    additionalProperties: false,
  },
};

/** Codex 0.171 `write_stdin`, its descriptions verbatim. */
export const WRITE_STDIN_SPEC: FunctionToolSpec = {
  type: "function",
  annotations: { destructiveHint: true, openWorldHint: true },
  name: "write_stdin",
  description: "Writes characters to an existing unified exec session and returns recent output.",
  strict: false,
  parameters: {
    type: "object",
    properties: {
      chars: {
        type: "string",
        description: "Bytes to write to stdin. Defaults to empty, which polls without writing.",
      },
      max_output_tokens: maxOutputTokens,
      session_id: { type: "number", description: "Identifier of the running unified exec session." },
      yield_time_ms: {
        type: "number",
        description:
          "Wait before yielding output. Non-empty writes default to 250 ms and cap at 30000 ms; empty polls wait 5000-300000 ms by default.",
      },
    },
    required: ["session_id"],
    additionalProperties: false,
  },
};
