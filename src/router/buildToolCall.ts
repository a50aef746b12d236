import type { ToolCall } from "../protocol/call.js";
import { FunctionCallError } from "../protocol/errors.js";
import type { McpToolRef } from "../registry/mcpSource.js";

type Raw = Record<string, unknown>;

const isRecord = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);
const nonEmptyString = (v: unknown): v is string => typeof v === "string" && v.length > 0;

/** The call id of a tool item, or undefined when it has none usable. */
export function itemCallId(item: unknown): string | undefined {
  if (!isRecord(item)) return undefined;
  if (nonEmptyString(item["call_id"])) return item["call_id"];
  if (item["type"] === "local_shell_call" && nonEmptyString(item["id"])) return item["id"];
  return undefined;
}

function toolName(item: Raw, kind: string): string {
  const name = item["name"];
  if (!nonEmptyString(name)) throw FunctionCallError.respondToModel(`${kind} without a tool name`);
  const ns = item["namespace"];
  return nonEmptyString(ns) ? `${ns}__${name}` : name;
}

function callId(item: Raw, kind: string): string {
  const id = item["call_id"];
  if (!nonEmptyString(id)) throw FunctionCallError.respondToModel(`${kind} without call_id`);
  return id;
}

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === "string");
const isStringRecord = (v: unknown): v is Record<string, string> =>
  isRecord(v) && Object.values(v).every((s) => typeof s === "string");

function localShellCall(item: Raw): ToolCall {
  const id = itemCallId(item);
  if (id === undefined) throw FunctionCallError.missingLocalShellCallId();
  const action = item["action"];
  if (!isRecord(action) || action["type"] !== "exec") {
    throw FunctionCallError.respondToModel("local_shell_call action must be an exec action");
  }
  const command = action["command"];
  if (!isStringArray(command) || command.length === 0) {
    throw FunctionCallError.respondToModel("local_shell_call action.command must be a non-empty array of strings");
  }
  const params: ToolCall["payload"] & { kind: "local_shell" } = { kind: "local_shell", params: { command } };
  const { working_directory: workdir, timeout_ms: timeoutMs, env } = action;
  if (workdir != null) {
    if (typeof workdir !== "string") throw FunctionCallError.respondToModel("local_shell_call action.working_directory must be a string");
    params.params.workdir = workdir;
  }
  if (timeoutMs != null) {
    if (typeof timeoutMs !== "number" || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      throw FunctionCallError.respondToModel("local_shell_call action.timeout_ms must be a positive number");
    }
    params.params.timeoutMs = timeoutMs;
  }
  if (env != null) {
    if (!isStringRecord(env)) throw FunctionCallError.respondToModel("local_shell_call action.env must map names to strings");
    params.params.env = env;
  }
  return { toolName: "local_shell", callId: id, payload: params };
}

/**
 * Model output item -> `ToolCall`; null for items that are not tool calls. Throws
 * `FunctionCallError` for tool items it cannot turn into a call.
 */
export function buildToolCall(item: unknown, resolveMcp: (name: string) => McpToolRef | undefined): ToolCall | null {
  if (!isRecord(item)) return null;
  switch (item["type"]) {
    case "function_call": {
      const name = toolName(item, "function_call");
      const id = callId(item, "function_call");
      const args = item["arguments"];
      if (typeof args !== "string") {
        throw FunctionCallError.respondToModel("failed to parse function arguments: arguments must be a JSON string");
      }
      const ref = resolveMcp(name);
      if (ref) {
        return { toolName: name, callId: id, payload: { kind: "mcp", server: ref.server, tool: ref.tool, rawArguments: args } };
      }
      return { toolName: name, callId: id, payload: { kind: "function", arguments: args } };
    }
    case "custom_tool_call": {
      const name = toolName(item, "custom_tool_call");
      const id = callId(item, "custom_tool_call");
      const input = item["input"];
      if (typeof input !== "string") throw FunctionCallError.respondToModel("custom_tool_call input must be a string");
      return { toolName: name, callId: id, payload: { kind: "custom", input } };
    }
    case "local_shell_call":
      return localShellCall(item);
    default:
      return null;
  }
}
