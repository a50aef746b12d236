import { JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ReplyReader, type ReadLine } from "../../src/mcp/replyReader.js";

const read = (...values: unknown[]): ReadLine[] =>
  new ReplyReader().push(
    Buffer.from(values.map((v) => (typeof v === "string" ? v : JSON.stringify(v)) + "\n").join("")),
  );

afterEach(() => {
  vi.restoreAllMocks();
});

describe("ReplyReader", () => {
  it("takes a plain result response without the JSON-RPC schema (the SDK checks the result itself)", () => {
    const parse = vi.spyOn(JSONRPCMessageSchema, "safeParse");
    const answer = { jsonrpc: "2.0", id: 7, result: { content: [{ type: "text", text: "hi" }] } };
    expect(read(answer, { ...answer, id: "s-1" })).toEqual([
      { kind: "message", message: answer },
      { kind: "message", message: { ...answer, id: "s-1" } },
    ]);
    expect(parse).not.toHaveBeenCalled();
  });

  it("refuses every envelope the schema refuses, naming the request when it can", () => {
    const lines = read(
      { jsonrpc: "1.0", id: 1, result: {} },
      { jsonrpc: "2.0", id: 2.5, result: {} },
      { jsonrpc: "2.0", id: 3, result: {}, extra: true },
      { jsonrpc: "2.0", id: 4, result: [] },
      { jsonrpc: "2.0", id: 5, result: null },
      { jsonrpc: "2.0", id: 6, result: { _meta: "not an object" } },
      { jsonrpc: "2.0", id: 2 ** 60, result: {} },
      { jsonrpc: "2.0", result: {} },
    );
    expect(lines.map((l) => l.kind)).toEqual(Array(8).fill("rejected"));
    expect(lines.map((l) => (l.kind === "rejected" ? l.id : "message"))).toEqual([
      1,
      2.5,
      3,
      4,
      5,
      6,
      2 ** 60,
      undefined,
    ]);
  });

  it("still validates what is not a plain result: requests, notifications, errors, results with _meta", () => {
    const parse = vi.spyOn(JSONRPCMessageSchema, "safeParse");
    const lines = read(
      { jsonrpc: "2.0", id: 1, method: "roots/list" },
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } },
      { jsonrpc: "2.0", id: 2, error: { code: -1, message: "no" } },
      { jsonrpc: "2.0", id: 3, result: { _meta: { a: 1 } } },
    );
    expect(lines.map((l) => l.kind)).toEqual(["message", "message", "message", "message"]);
    expect(parse).toHaveBeenCalledTimes(4);
  });
});
