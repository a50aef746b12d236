/**
 * Values a plugin handler might throw or return that resist being turned into text: getters
 * and `toString` that throw, proxies whose every trap throws, revoked proxies, symbols, cycles.
 */
const trapsThatThrow: ProxyHandler<object> = Object.fromEntries(
  [
    "get",
    "has",
    "ownKeys",
    "getPrototypeOf",
    "getOwnPropertyDescriptor",
    "apply",
    "construct",
    "set",
    "defineProperty",
  ].map((trap) => [
    trap,
    () => {
      throw new Error(`trap ${trap} says no`);
    },
  ]),
);

function revoked(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

const errorWithThrowingMessage = (): Error => {
  const err = new Error("hidden");
  Object.defineProperty(err, "message", {
    get() {
      throw new Error("message getter says no");
    },
  });
  return err;
};

const cyclic = (): object => {
  const o: Record<string, unknown> = { name: "loop" };
  o["self"] = o;
  return o;
};

/** name -> a fresh value, and what `tool {name} failed: ...` should say for it when thrown. */
export const HOSTILE_THROWS: Record<string, { value: () => unknown; text: string | RegExp }> = {
  "message getter throws": {
    value: () => ({
      get message(): string {
        throw new Error("no");
      },
    }),
    text: "unknown error",
  },
  "toString throws": {
    value: () =>
      Object.assign(Object.create(null) as object, {
        toString() {
          throw new Error("no");
        },
      }),
    text: "unknown error",
  },
  "Error whose message getter throws": { value: errorWithThrowingMessage, text: "unknown error" },
  "proxy whose traps throw": { value: () => new Proxy({}, trapsThatThrow), text: "unknown error" },
  "revoked proxy": { value: revoked, text: "unknown error" },
  symbol: { value: () => Symbol("boom"), text: "Symbol(boom)" },
  null: { value: () => null, text: "unknown error" },
  undefined: { value: () => undefined, text: "unknown error" },
  number: { value: () => 42, text: "42" },
  "plain object": {
    value: () => ({ code: "E_BAD", detail: "x".repeat(500) }),
    text: /^\{"code":"E_BAD","detail":"x+…$/,
  },
  "cyclic object": { value: cyclic, text: "unknown error" },
  string: { value: () => "plain string thrown", text: "plain string thrown" },
};

/** Outputs a handler might return that break the `ToolOutput` contract. */
export const MALFORMED_OUTPUTS: Record<string, { value: () => unknown; text: string | RegExp }> = {
  undefined: { value: () => undefined, text: /malformed output \(expected an object, got undefined\)$/ },
  null: { value: () => null, text: /malformed output \(expected an object, got null\)$/ },
  "unknown kind": { value: () => ({ kind: "text", body: "hi" }), text: /malformed output \(unknown kind "text"\)$/ },
  "body not text": { value: () => ({ kind: "function", body: 42 }), text: /malformed output \(body must be a string/ },
  "bad content item": {
    value: () => ({ kind: "function", body: [{ type: "input_text", text: 1 }] }),
    text: /malformed output \(body must be a string/,
  },
  "success not boolean": {
    value: () => ({ kind: "function", body: "x", success: "yes" }),
    text: /malformed output \(success must be a boolean\)$/,
  },
  "mcp without result": {
    value: () => ({ kind: "mcp", result: null }),
    text: /malformed output \(an mcp output needs a result object\)$/,
  },
  "mcp content not an array": {
    value: () => ({ kind: "mcp", result: { content: "hi" } }),
    text: /malformed output \(result.content must be an array\)$/,
  },
  "proxy whose traps throw": { value: () => new Proxy({}, trapsThatThrow), text: /^tool \w+ failed: / },
};
