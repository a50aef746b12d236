type Item = Record<string, unknown>;

/**
 * A spec without what we leave out on purpose: request_user_input's "only available in Plan
 * mode" (not true here).
 */
export function withoutDeliberate(spec: Item | undefined): unknown {
  if (!spec) return spec;
  const copy = structuredClone(spec);
  if (copy.name === "request_user_input")
    copy.description = String(copy.description).replace(/ This tool is only available in Plan mode\.$/, "");
  return copy;
}
