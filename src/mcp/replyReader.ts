import { JSONRPCMessageSchema, type JSONRPCMessage, type RequestId } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage, isRecord } from "../util/index.js";

/** Default cap on one message from a server (`max_reply_bytes`). */
const DEFAULT_MAX_REPLY_BYTES = 64 * 1024 * 1024;

/** One line read from a server: a message, or why it is not one (with its request id when it shows one). */
export type ReadLine =
  { kind: "message"; message: JSONRPCMessage } | { kind: "rejected"; reason: string; id: RequestId | undefined };

/** Bytes kept from each end of an oversized line, to find the request id it answers. */
const EDGE_BYTES = 1024;
/** Where an `"id"` sits in a line that is not (or no longer) JSON: near either end. */
const ID_PATTERN = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,200}")/;

/**
 * Splits a server's stdout into newline-delimited JSON-RPC messages in linear time: each
 * chunk is scanned once and a line is joined once (the SDK's ReadBuffer re-copies and
 * re-scans its whole buffer per chunk, which makes a 30 MB reply quadratic). A line over
 * `maxBytes` is not kept: only its two ends are, to name the request it answered.
 */
export class ReplyReader {
  private chunks: Buffer[] = [];
  private size = 0;
  /** Set while skipping the rest of an oversized line. */
  private oversized: { head: Buffer; tail: Buffer } | undefined;

  constructor(private readonly maxBytes = DEFAULT_MAX_REPLY_BYTES) {}

  push(chunk: Buffer): ReadLine[] {
    const out: ReadLine[] = [];
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      this.add(chunk.subarray(start, nl));
      const line = this.take();
      if (line) out.push(line);
      start = nl + 1;
    }
    if (start < chunk.length) this.add(chunk.subarray(start));
    return out;
  }

  clear(): void {
    this.chunks = [];
    this.size = 0;
    this.oversized = undefined;
  }

  private add(part: Buffer): void {
    if (part.length === 0) return;
    if (this.oversized) {
      this.oversized.tail = lastBytes(Buffer.concat([this.oversized.tail, part]));
      this.size += part.length;
      return;
    }
    this.chunks.push(part);
    this.size += part.length;
    if (this.size > this.maxBytes) {
      const all = Buffer.concat(this.chunks);
      this.oversized = { head: all.subarray(0, EDGE_BYTES), tail: lastBytes(all) };
      this.chunks = [];
    }
  }

  /** The line ended: parse it (or report the oversized one) and start the next. */
  private take(): ReadLine | undefined {
    const { oversized, chunks } = this;
    this.clear();
    if (oversized) {
      const ends = `${oversized.head.toString("utf8")}\n${oversized.tail.toString("utf8")}`;
      return { kind: "rejected", reason: `reply exceeded ${this.maxBytes} bytes`, id: idIn(ends) };
    }
    const text = (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString("utf8");
    const line = text.endsWith("\r") ? text.slice(0, -1) : text;
    if (line.trim() === "") return undefined;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      const ends = line.length > 2 * EDGE_BYTES ? `${line.slice(0, EDGE_BYTES)}\n${line.slice(-EDGE_BYTES)}` : line;
      return { kind: "rejected", reason: `malformed reply (not JSON: ${errorMessage(err)})`, id: idIn(ends) };
    }
    const plain = plainResult(value);
    if (plain) return { kind: "message", message: plain };
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (parsed.success) return { kind: "message", message: parsed.data };
    const id =
      isRecord(value) && (typeof value["id"] === "number" || typeof value["id"] === "string") ? value["id"] : undefined;
    return { kind: "rejected", reason: `malformed reply (not a JSON-RPC message: ${summary(value)})`, id };
  }
}

/**
 * A plain result response (`jsonrpc`, `id` and a `result` object without `_meta`, nothing else)
 * skips zod: the SDK checks `result` against the request's own schema when it takes the answer,
 * and `JSONRPCMessageSchema` would try three other shapes first and copy the result. Whatever
 * this does not accept still goes through the schema, so it accepts nothing the schema refuses.
 */
function plainResult(value: unknown): JSONRPCMessage | undefined {
  if (!isRecord(value) || value["jsonrpc"] !== "2.0") return undefined;
  const { id, result } = value;
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return undefined;
  if (!isRecord(result) || result["_meta"] !== undefined) return undefined;
  let keys = 0;
  for (const key in value) if (Object.hasOwn(value, key)) keys++;
  return keys === 3 ? (value as JSONRPCMessage) : undefined;
}

function lastBytes(buf: Buffer): Buffer {
  return buf.length > EDGE_BYTES ? Buffer.from(buf.subarray(buf.length - EDGE_BYTES)) : buf;
}

function idIn(text: string): RequestId | undefined {
  const match = ID_PATTERN.exec(text);
  if (!match) return undefined;
  try {
    return JSON.parse(match[1] as string) as RequestId;
  } catch {
    return undefined;
  }
}

/** A short account of a JSON value that is not a JSON-RPC message (e.g. `result: null`). */
function summary(value: unknown): string {
  if (!isRecord(value)) return `got ${value === null ? "null" : Array.isArray(value) ? "an array" : typeof value}`;
  if ("result" in value && !isRecord(value["result"])) {
    return `result is ${value["result"] === null ? "null" : typeof value["result"]}`;
  }
  return `keys ${Object.keys(value).slice(0, 8).join(", ")}`;
}
