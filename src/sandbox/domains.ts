import { isIPv4 } from "node:net";

/**
 * The network allowlist's patterns (DESIGN section 12), as Claude Code's sandbox and
 * Anthropic's sandbox-runtime read them: `example.com` is that name exactly; `*.example.com`
 * is every name below it (`a.example.com`, `a.b.example.com`) but not `example.com` itself;
 * an IPv4 address is that address exactly. No scheme, port, path or other wildcard; `*.com`
 * is too broad. Matching ignores case and one trailing dot.
 */

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
const MAX_NAME = 253;

/** Lower case, without one trailing dot; undefined when `host` is no valid host name or IPv4 address. */
export function normalizeHost(host: string): string | undefined {
  const name = (host.endsWith(".") ? host.slice(0, -1) : host).toLowerCase();
  if (name === "" || name.length > MAX_NAME) return undefined;
  return name.split(".").every((label) => LABEL.test(label)) ? name : undefined;
}

/** Why `pattern` is not an allowlist entry, or undefined when it is one. */
export function domainPatternProblem(pattern: string): string | undefined {
  if (/[/:@?#\s]/.test(pattern)) return "a domain has no scheme, port or path (write example.com or *.example.com)";
  const wildcard = pattern.startsWith("*.");
  const name = wildcard ? pattern.slice(2) : pattern;
  if (name.includes("*")) return "the only wildcard is a leading *. (as in *.example.com)";
  if (name.endsWith(".") || normalizeHost(name) === undefined) return "not a valid domain name";
  if (!name.includes(".") && !(name.toLowerCase() === "localhost" && !wildcard))
    return "a domain needs a dot (*.com and bare names are too broad)";
  if (wildcard && isIPv4(name)) return "an IP address takes no wildcard";
  return undefined;
}

/** `patterns`, each checked and lower-cased; throws a TypeError naming the first bad entry at `where[i]`. */
export function validateDomainPatterns(patterns: unknown, where: string): string[] {
  if (!Array.isArray(patterns)) throw new TypeError(`${where} must be a list of domains`);
  return patterns.map((p: unknown, i) => {
    if (typeof p !== "string") throw new TypeError(`${where}[${i}] must be a string`);
    const problem = domainPatternProblem(p);
    if (problem !== undefined) throw new TypeError(`${where}[${i}]: ${JSON.stringify(p)}: ${problem}`);
    return p.toLowerCase();
  });
}

/** Does one of the (validated) `patterns` allow `host` (as the client sent it)? */
export function domainAllowed(patterns: Iterable<string>, host: string): boolean {
  const name = normalizeHost(host);
  if (name === undefined) return false;
  for (const pattern of patterns) {
    if (pattern.startsWith("*.") ? name.endsWith(pattern.slice(1)) : name === pattern) return true;
  }
  return false;
}
