type Item = Record<string, unknown>;

/**
 * A spec without what we leave out on purpose: request_user_input's "only available in Plan
 * mode" (not true here) and exec_command's per-command escalation parameters (section 12: a
 * command the sandbox stops asks through the approval flow).
 */
export function withoutDeliberate(spec: Item | undefined): unknown {
  if (!spec) return spec;
  const copy = structuredClone(spec) as Item & { parameters?: { properties?: Record<string, unknown> } };
  if (copy.name === "request_user_input")
    copy.description = String(copy.description).replace(/ This tool is only available in Plan mode\.$/, "");
  if (copy.name === "exec_command" && copy.parameters?.properties) {
    for (const key of ["justification", "prefix_rule", "sandbox_permissions"]) delete copy.parameters.properties[key];
  }
  return copy;
}
