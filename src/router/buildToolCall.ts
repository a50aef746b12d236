import {
  FunctionCallError,
  HOSTED_CALL_TYPES,
  texts,
  type ApplyPatchOperation,
  type ShellCallParams,
  type PayloadKind,
  type ShellToolCallParams,
  type ToolCall,
} from "../protocol/index.js";
import type { McpToolRef } from "../registry/index.js";
import { isRecord } from "../util/index.js";

/** A tool item that cannot become a call. Without a call id it cannot be answered at all. */
export class ToolCallFailure {
  constructor(
    readonly callId: string | undefined,
    /** `{namespace}__{name}` as a call would be named; `""` when the item names no tool. */
    readonly toolName: string,
    readonly payloadKind: PayloadKind,
    readonly error: FunctionCallError,
  ) {}
}

/**
 * What a model item becomes, as a value (failures are not thrown: the runtime answers them
 * like any other call, so it needs their call id, name and payload kind): a call, a failure,
 * or null for items that are not tool calls (messages, reasoning, hosted tools).
 */
export type BuiltToolCall = ToolCall | ToolCallFailure | null;

const nonEmptyString = (v: unknown): v is string => typeof v === "string" && v.length > 0;
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === "string");
const isStringRecord = (v: unknown): v is Record<string, string> =>
  isRecord(v) && Object.values(v).every((s) => typeof s === "string");

/** The call id of a tool item, or undefined when it has none usable. */
function itemCallId(item: unknown): string | undefined {
  if (!isRecord(item)) return undefined;
  if (nonEmptyString(item["call_id"])) return item["call_id"];
  if (item["type"] === "local_shell_call" && nonEmptyString(item["id"])) return item["id"];
  return undefined;
}

/** The tool a function or custom item names: `{namespace}__{name}` when namespaced. */
function itemToolName(item: Record<string, unknown>): string | undefined {
  const name = item["name"];
  if (!nonEmptyString(name)) return undefined;
  const ns = item["namespace"];
  return nonEmptyString(ns) ? `${ns}__${name}` : name;
}

function failed(
  callId: string | undefined,
  toolName: string,
  payloadKind: PayloadKind,
  message: string,
): ToolCallFailure {
  return new ToolCallFailure(callId, toolName, payloadKind, FunctionCallError.respondToModel(message));
}

function localShellCall(item: Record<string, unknown>): BuiltToolCall {
  const id = itemCallId(item);
  const fail = (message: string): ToolCallFailure => failed(id, "local_shell", "local_shell", message);
  if (id === undefined) {
    return new ToolCallFailure(undefined, "local_shell", "local_shell", FunctionCallError.missingLocalShellCallId());
  }
  const action = item["action"];
  if (!isRecord(action) || action["type"] !== "exec") return fail("local_shell_call action must be an exec action");
  const command = action["command"];
  if (!isStringArray(command) || command.length === 0) {
    return fail("local_shell_call action.command must be a non-empty array of strings");
  }
  const params: ShellToolCallParams = { command };
  const { working_directory: workdir, timeout_ms: timeoutMs, env } = action;
  if (workdir != null) {
    if (typeof workdir !== "string") return fail("local_shell_call action.working_directory must be a string");
    params.workdir = workdir;
  }
  if (timeoutMs != null) {
    if (typeof timeoutMs !== "number" || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      return fail("local_shell_call action.timeout_ms must be a positive number");
    }
    params.timeoutMs = timeoutMs;
  }
  if (env != null) {
    if (!isStringRecord(env)) return fail("local_shell_call action.env must map names to strings");
    params.env = env;
  }
  return { toolName: "local_shell", callId: id, payload: { kind: "local_shell", params } };
}

const optionalPositive = (v: unknown): v is number | null | undefined =>
  v == null || (typeof v === "number" && Number.isFinite(v) && v > 0);

/** A Responses `shell_call`, for whichever shell tool is registered (`shellTool`). */
function shellCall(item: Record<string, unknown>, callId: string, shellTool: string): BuiltToolCall {
  const fail = (message: string): ToolCallFailure => failed(callId, shellTool, "shell_call", message);
  const action = item["action"];
  if (!isRecord(action)) return fail("shell_call action must be an object");
  const { commands, timeout_ms: timeoutMs, max_output_length: max } = action;
  if (!isStringArray(commands) || commands.length === 0) {
    return fail("shell_call action.commands must be a non-empty array of strings");
  }
  if (!optionalPositive(timeoutMs)) return fail("shell_call action.timeout_ms must be a positive number");
  if (!optionalPositive(max) || (max != null && !Number.isInteger(max))) {
    return fail("shell_call action.max_output_length must be a positive integer");
  }
  const params: ShellCallParams = { commands };
  if (timeoutMs != null) params.timeoutMs = timeoutMs;
  if (max != null) params.maxOutputLength = max;
  return { toolName: shellTool, callId, payload: { kind: "shell_call", params } };
}

/** A Responses `apply_patch_call`, for the `apply_patch` tool. */
function applyPatchCall(item: Record<string, unknown>, callId: string): BuiltToolCall {
  const fail = (message: string): ToolCallFailure => failed(callId, "apply_patch", "apply_patch_call", message);
  const op = item["operation"];
  if (!isRecord(op)) return fail("apply_patch_call operation must be an object");
  const { type, path, diff } = op;
  if (!nonEmptyString(path)) return fail("apply_patch_call operation.path must be a non-empty string");
  let operation: ApplyPatchOperation;
  if (type === "delete_file") operation = { type, path };
  else if (type === "create_file" || type === "update_file") {
    if (typeof diff !== "string") return fail(`apply_patch_call operation.diff must be a string for ${type}`);
    operation = { type, path, diff };
  } else {
    return fail(
      `apply_patch_call operation.type must be create_file, update_file or delete_file, got ${JSON.stringify(type)}`,
    );
  }
  return { toolName: "apply_patch", callId, payload: { kind: "apply_patch_call", operation } };
}

/**
 * Model output item -> `ToolCall`, as a value: null for items that are not tool calls, a
 * `ToolCallFailure` (with whatever call id and name the item has) for tool items that cannot
 * become one.
 * `resolveMcp` maps a qualified name to its MCP tool by exact lookup; `shellTool` names the tool
 * that answers `shell_call` items (asked only for those).
 */
export function buildCall(
  item: unknown,
  resolveMcp: (name: string) => McpToolRef | undefined,
  shellTool: () => string = () => "shell",
): BuiltToolCall {
  if (!isRecord(item)) return null;
  const type = item["type"];
  if (type === "local_shell_call") return localShellCall(item);
  if (type === "shell_call" || type === "apply_patch_call") {
    const callId = itemCallId(item);
    const toolName = type === "shell_call" ? shellTool() : "apply_patch";
    if (callId === undefined) return failed(undefined, toolName, type, `${type} without call_id`);
    return type === "shell_call" ? shellCall(item, callId, toolName) : applyPatchCall(item, callId);
  }
  if (type !== "function_call" && type !== "custom_tool_call") {
    // Never silent (DESIGN section 13): a call of a kind we cannot answer is rejected, not
    // ignored, or the provider fails the next request for want of its output.
    if (typeof type !== "string" || !type.endsWith("_call") || HOSTED_CALL_TYPES.has(type)) return null;
    const id = itemCallId(item);
    return failed(undefined, "", "function", texts.unsupportedItemType(type, id));
  }

  const payloadKind = type === "function_call" ? "function" : "custom";
  const name = itemToolName(item);
  const rawId = item["call_id"];
  const callId = nonEmptyString(rawId) ? rawId : undefined;
  if (name === undefined) return failed(callId, "", payloadKind, `${type} without a tool name`);
  if (callId === undefined) return failed(undefined, name, payloadKind, `${type} without call_id`);
  if (type === "custom_tool_call") {
    const input = item["input"];
    if (typeof input !== "string") return failed(callId, name, payloadKind, "custom_tool_call input must be a string");
    return { toolName: name, callId, payload: { kind: "custom", input } };
  }
  const args = item["arguments"];
  if (typeof args !== "string") return failed(callId, name, payloadKind, texts.argumentsNotString);
  const ref = resolveMcp(name);
  const payload = ref
    ? ({ kind: "mcp", server: ref.server, tool: ref.tool, rawArguments: args } as const)
    : ({ kind: "function", arguments: args } as const);
  return { toolName: name, callId, payload };
}
