import type { ToolCall } from "../protocol/index.js";
import { parseArguments, validateArguments, type ArgumentValidator } from "../registry/index.js";

/**
 * Step b of DESIGN section 3: what the handler gets as `inv.args`. Function and MCP arguments are
 * parsed, then validated against the schema the model saw; other payloads pass their own fields.
 * A step that mends arguments before they are judged (repair, DESIGN section 18) goes between
 * the parse and the validation here: everything after it sees only valid arguments.
 */
export function callArguments(call: ToolCall, validate: ArgumentValidator | null): unknown {
  const payload = call.payload;
  switch (payload.kind) {
    case "function":
    case "mcp": {
      const args = parseArguments(payload.kind === "function" ? payload.arguments : payload.rawArguments);
      validateArguments(call.toolName, args, validate);
      return args;
    }
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
