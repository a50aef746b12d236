import { createHash } from "node:crypto";

/** Provider limit on tool names (OpenAI: `^[a-zA-Z0-9_-]{1,64}$`). */
const MAX_TOOL_NAME_LENGTH = 64;
const MCP_TOOL_NAME_DELIMITER = "__";
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
 * Provider-safe qualified names `mcp__{server}__{tool}`, stable for a session: a name once
 * given keeps pointing at the same server and tool, whatever later listings add, drop or
 * reorder. Names over 64 characters keep a prefix and end with the SHA-1 of the raw name (as
 * Codex does). Unlike Codex, a name that collides (`a.b` vs `a_b`) is not dropped: it gets the
 * hash form, and who keeps the plain form follows from the raw names, never from listing
 * order: a tool whose raw name needs no change first, then by raw name.
 */
export class ToolNamer {
  /** Every name given this session -> the `server\0tool` key it stands for. */
  private readonly owners = new Map<string, string>();
  private readonly names = new Map<string, string>();

  /**
   * Names for `tools`, in their order. Only an exact repeat of the same server and tool is
   * skipped (nothing is lost); server `a__b` + tool `c` and server `a` + tool `b__c` share a
   * raw name but are both kept.
   */
  qualify<T extends { server: string; tool: string }>(
    tools: Iterable<T>,
    onSkip?: (raw: string) => void,
  ): Map<string, T> {
    type Entry = { entry: T; raw: string; key: string };
    const entries: Entry[] = [];
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
      entries.push({ entry, raw, key });
    }
    const fresh = entries.filter((e) => !this.names.has(e.key));
    const exact = (e: Entry): number => (sanitizeToolName(e.raw) === e.raw ? 0 : 1);
    fresh.sort((a, b) => exact(a) - exact(b) || compare(a.raw, b.raw) || compare(a.key, b.key));
    for (const { raw, key } of fresh) this.give(raw, key);
    return new Map(entries.map((e) => [this.names.get(e.key) as string, e.entry]));
  }

  private give(raw: string, key: string): void {
    const sanitized = sanitizeToolName(raw);
    let name = sanitized.length > MAX_TOOL_NAME_LENGTH ? hashedName(sanitized, raw) : sanitized;
    // A salted rehash only matters if two different raw names hash into the same slot.
    for (let salt = 0; this.owners.has(name); salt++) name = hashedName(sanitized, salt === 0 ? raw : `${raw}#${salt}`);
    this.owners.set(name, key);
    this.names.set(key, name);
  }
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** One-off qualified names for `tools` (see `ToolNamer`; a manager keeps one per session). */
export function qualifyTools<T extends { server: string; tool: string }>(
  tools: Iterable<T>,
  onSkip?: (raw: string) => void,
): Map<string, T> {
  return new ToolNamer().qualify(tools, onSkip);
}
