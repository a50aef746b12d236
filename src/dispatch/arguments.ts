import { FunctionCallError, type ToolCall } from "../protocol/index.js";
import type { ArgumentValidator } from "../registry/index.js";
import { NOT_PLAIN, plainArguments, prepareArguments, reportRepairs } from "../repair/index.js";
import type { TurnContext } from "../turn/index.js";
import type { PreparedCall } from "./preparedCall.js";

/**
 * Step b of DESIGN section 3: what the handler gets as `inv.args`. Function and MCP arguments are
 * parsed, repaired where JSON.parse or the schema refused them and the meaning is certain
 * (DESIGN section 18), then validated against the schema the model saw; other payloads pass
 * their own fields. Everything after this sees only valid arguments.
 */
export function callArguments<Ctx>(
  p: PreparedCall<Ctx>,
  validate: ArgumentValidator | null,
  turn: TurnContext,
): unknown {
  const payload = p.call.payload;
  switch (payload.kind) {
    case "function":
      return repaired(p, payload.arguments, validate, turn);
    case "mcp":
      return repaired(p, payload.rawArguments, validate, turn);
    case "custom":
      return payload.input;
    case "local_shell":
      return payload.params;
    // What hooks and middleware see: the item's own fields.
    case "shell_call": {
      const { commands, timeoutMs, maxOutputLength } = payload.params;
      return { commands, timeout_ms: timeoutMs ?? null, max_output_length: maxOutputLength ?? null };
    }
    case "apply_patch_call":
      return payload.operation;
  }
}

/**
 * Parsed, repaired where certain and validated. A repair is told at once (event, debug log) and
 * kept on the call, whose answer then starts with the note; a call still invalid after repair
 * is refused with the note in its text.
 */
function repaired<Ctx>(
  p: PreparedCall<Ctx>,
  raw: string,
  validate: ArgumentValidator | null,
  turn: TurnContext,
): unknown {
  const repair = p.scope.repair;
  // Well-formed and valid, as nearly every call is: the parsed value, nothing more made.
  const plain = plainArguments(raw, validate, repair);
  if (plain !== NOT_PLAIN) return plain;
  const { call } = p;
  const prepared = prepareArguments(call.toolName, raw, validate, repair);
  if (prepared.repairs.length > 0) reportRepairs(turn, call, prepared.repairs);
  if (prepared.error !== undefined) throw FunctionCallError.respondToModel(prepared.error);
  if (prepared.repairs.length > 0) p.repairs = prepared.repairs;
  return prepared.args;
}

/**
 * With `PermissionPolicy.riskField`, the model's `security_risk` is the policy's, not the tool's:
 * removes it from a function call's arguments (rewriting the payload the tool validates and
 * sees) and returns it; undefined when absent or not parseable.
 */
export function takeRisk(call: ToolCall): unknown {
  const payload = call.payload;
  if (payload.kind !== "function" && payload.kind !== "mcp") return undefined;
  const raw = payload.kind === "function" ? payload.arguments : payload.rawArguments;
  let args: unknown;
  try {
    args = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (typeof args !== "object" || args === null || Array.isArray(args) || !("security_risk" in args)) return undefined;
  const { security_risk: risk, ...rest } = args as Record<string, unknown>;
  const stripped = JSON.stringify(rest);
  if (payload.kind === "function") payload.arguments = stripped;
  else payload.rawArguments = stripped;
  return risk;
}
