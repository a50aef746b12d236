import type { FunctionToolSpec } from "../../protocol/index.js";

const workdir = { type: "string", description: "The working directory to execute the command in" };
const timeoutMs = { type: "number", exclusiveMinimum: 0, description: "The timeout for the command in milliseconds" };

/** Codex `create_shell_tool`: argv run directly. */
export const SHELL_SPEC: FunctionToolSpec = {
  type: "function",
  annotations: { destructiveHint: true, openWorldHint: true },
  name: "shell",
  description:
    "Runs a shell command and returns its output.\n" +
    '- The arguments to `shell` will be passed to execvp(). Most terminal commands should be prefixed with ["bash", "-lc"].\n' +
    "- Always set the `workdir` param when using the shell function. Do not use `cd` unless absolutely necessary.",
  strict: false,
  parameters: {
    type: "object",
    properties: {
      command: { type: "array", items: { type: "string" }, minItems: 1, description: "The command to execute" },
      workdir,
      timeout_ms: timeoutMs,
    },
    required: ["command"],
    additionalProperties: false,
  },
};

/** Codex `create_shell_command_tool`: a script run by the user's shell. */
export const SHELL_COMMAND_SPEC: FunctionToolSpec = {
  type: "function",
  annotations: { destructiveHint: true, openWorldHint: true },
  name: "shell_command",
  description:
    "Runs a shell command and returns its output.\n" +
    "- Always set the `workdir` param when using the shell_command function. Do not use `cd` unless absolutely necessary.",
  strict: false,
  parameters: {
    type: "object",
    properties: {
      command: { type: "string", description: "The shell script to execute in the user's default shell" },
      workdir,
      login: { type: "boolean", description: "Whether to run the shell with login shell semantics. Defaults to true." },
      timeout_ms: timeoutMs,
    },
    required: ["command"],
    additionalProperties: false,
  },
};
