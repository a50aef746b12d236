/*
 * The resident helper's protocol: one JSON object per line each way. A request is
 * `{"i": id, "o": op, "a": [args]}`, an answer `{"i": id, "v": value}` or
 * `{"i": id, "e": {"code", "path", "message"}}`; buffers travel as `{"$b64": base64}` so binary
 * contents survive. Many requests may be in flight; answers come in any order.
 */

export interface Request {
  i: number;
  o: string;
  a: unknown[];
}

export type Answer = { i: number; v: unknown } | { i: number; e: { code?: string; path?: string; message: string } };

export function encode(message: Request | Answer): string {
  return JSON.stringify(message, function (this: Record<string, unknown>, key, value: unknown) {
    const raw = this[key];
    return Buffer.isBuffer(raw) ? { $b64: raw.toString("base64") } : value;
  });
}

export function decode(line: string): unknown {
  return JSON.parse(line, (_key, value: unknown) => {
    if (typeof value === "object" && value !== null && typeof (value as { $b64?: unknown }).$b64 === "string")
      return Buffer.from((value as { $b64: string }).$b64, "base64");
    return value;
  });
}
