import { createHash } from "node:crypto";

/** Provider limit on tool names (OpenAI: `^[a-zA-Z0-9_-]{1,64}$`). */
export const MAX_TOOL_NAME_LENGTH = 64;
export const MCP_TOOL_NAME_DELIMITER = "__";
const SERVER_NAME = /^[a-zA-Z0-9_-]+$/;

export function isValidServerName(name: string): boolean {
  return SERVER_NAME.test(name);
}

/** Every character outside `[A-Za-z0-9_-]` (per code point) becomes `_`. */
export function sanitizeToolName(name: string): string {
  let out = "";
  for (const ch of name) out += /^[A-Za-z0-9_-]$/.test(ch) ? ch : "_";
  return out === "" ? "_" : out;
}

const sha1Hex = (s: string): string => createHash("sha1").update(s, "utf8").digest("hex");

/** A prefix of the sanitized name plus the SHA-1 hex of `hashInput`, 64 characters in all. */
function hashedName(sanitized: string, hashInput: string): string {
  const hash = sha1Hex(hashInput);
  return sanitized.slice(0, MAX_TOOL_NAME_LENGTH - hash.length) + hash;
}

/**
 * Provider-safe qualified names `mcp__{server}__{tool}` for tools in listing order. Names over
 * 64 characters keep a prefix and end with the SHA-1 of the raw name (as Codex does). Unlike
 * Codex, a name that collides with an earlier one (`a.b` vs `a_b`) is not dropped: it gets the
 * hash form. Only an exact repeat of the same server and tool is skipped (nothing is lost);
 * server `a__b` + tool `c` and server `a` + tool `b__c` share a raw name but are both kept.
 */
export function qualifyTools<T extends { server: string; tool: string }>(
  tools: Iterable<T>,
  onSkip?: (raw: string) => void,
): Map<string, T> {
  const out = new Map<string, T>();
  const seen = new Set<string>();
  for (const entry of tools) {
    const raw = `mcp${MCP_TOOL_NAME_DELIMITER}${entry.server}${MCP_TOOL_NAME_DELIMITER}${entry.tool}`;
    // Server names cannot hold a NUL, so this pair key is unambiguous where `raw` is not.
    const key = `${entry.server}\0${entry.tool}`;
    if (seen.has(key)) {
      onSkip?.(raw);
      continue;
    }
    seen.add(key);
    const sanitized = sanitizeToolName(raw);
    let name = sanitized.length > MAX_TOOL_NAME_LENGTH ? hashedName(sanitized, raw) : sanitized;
    // A salted rehash only matters if two different raw names hash into the same slot.
    for (let salt = 0; out.has(name); salt++) name = hashedName(sanitized, salt === 0 ? raw : `${raw}#${salt}`);
    out.set(name, entry);
  }
  return out;
}
