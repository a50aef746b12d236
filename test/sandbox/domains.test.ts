/**
 * The network allowlist's patterns (DESIGN section 12), read as Claude Code's sandbox and
 * Anthropic's sandbox-runtime read them: `*.x.com` is every name below x.com, not x.com.
 */
import { describe, expect, it } from "vitest";
import { domainAllowed, domainPatternProblem, normalizeHost } from "../../src/sandbox/domains.js";
import { validateDomainPatterns, validateSandboxPolicy } from "../../src/sandbox/index.js";

const LIST = ["registry.example", "*.github.com", "10.1.2.3", "localhost"];

describe("domainAllowed", () => {
  it.each([
    ["registry.example", true],
    ["REGISTRY.Example", true],
    ["registry.example.", true],
    ["api.github.com", true],
    ["a.b.github.com", true],
    ["github.com", false],
    ["evilgithub.com", false],
    ["github.com.evil.test", false],
    ["sub.registry.example", false],
    ["registry.example.evil.test", false],
    ["10.1.2.3", true],
    ["10.1.2.4", false],
    ["localhost", true],
    ["[::1]", false],
    ["", false],
    ["api.github.com\0.evil.test", false],
    ["api.github.com evil", false],
    ["registry.example:443", false],
    [".github.com", false],
    ["a..github.com", false],
  ])("%j -> %s", (host, allowed) => {
    expect(domainAllowed(LIST, host)).toBe(allowed);
  });

  it("an empty list allows nothing", () => {
    expect(domainAllowed([], "registry.example")).toBe(false);
  });
});

describe("domain patterns", () => {
  it.each([
    ["https://example.com", /no scheme, port or path/],
    ["example.com:443", /no scheme, port or path/],
    ["example.com/path", /no scheme, port or path/],
    ["user@example.com", /no scheme, port or path/],
    ["*", /only wildcard/],
    ["*.com", /too broad/],
    ["com", /too broad/],
    ["ex*ample.com", /only wildcard/],
    ["*.*.example.com", /only wildcard/],
    ["example..com", /not a valid domain/],
    ["-bad.example.com", /not a valid domain/],
    ["example.com.", /not a valid domain/],
    ["*.10.1.2.3", /IP address takes no wildcard/],
    ["", /not a valid domain/],
  ])("%j is refused", (pattern, problem) => {
    expect(domainPatternProblem(pattern)).toMatch(problem);
  });

  it.each(["example.com", "*.example.com", "a-b.example.co.uk", "localhost", "10.1.2.3", "EXAMPLE.com"])(
    "%j is a pattern",
    (pattern) => {
      expect(domainPatternProblem(pattern)).toBeUndefined();
    },
  );

  it("a list is checked entry by entry, the bad one named, and lower-cased", () => {
    expect(validateDomainPatterns(["A.example.com", "*.B.example"], "x")).toEqual(["a.example.com", "*.b.example"]);
    expect(() => validateDomainPatterns(["ok.example", "https://bad.example"], "sandbox.allowedDomains")).toThrow(
      'sandbox.allowedDomains[1]: "https://bad.example": a domain has no scheme, port or path',
    );
    expect(() => validateDomainPatterns(["ok.example", 3], "w")).toThrow("w[1] must be a string");
    expect(() => validateDomainPatterns("ok.example", "w")).toThrow("w must be a list of domains");
  });

  it("normalizeHost lower-cases and drops one trailing dot; refuses what is no name", () => {
    expect(normalizeHost("Api.GitHub.com.")).toBe("api.github.com");
    expect(normalizeHost("a b")).toBeUndefined();
    expect(normalizeHost("x".repeat(254))).toBeUndefined();
  });
});

describe("SandboxPolicy.allowedDomains", () => {
  it("is checked with the policy", () => {
    expect(validateSandboxPolicy({ mode: "workspace-write", allowedDomains: ["A.example"] })).toEqual({
      mode: "workspace-write",
      allowedDomains: ["a.example"],
    });
    expect(() => validateSandboxPolicy({ mode: "workspace-write", allowedDomains: ["*.com"] })).toThrow(
      /sandbox\.allowedDomains\[0\]: "\*\.com": .*too broad/,
    );
    expect(() =>
      validateSandboxPolicy({ mode: "workspace-write", networkAccess: true, allowedDomains: ["a.example"] }),
    ).toThrow("networkAccess true allows every domain; give it or allowedDomains, not both");
  });
});
