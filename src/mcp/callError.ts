import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { texts } from "../protocol/index.js";
import { errorMessage } from "../util/index.js";
import { REPLY_REJECTED_CODE } from "./stdioTransport.js";

/** A model-facing failure of an MCP request (becomes `tool call error: ...` / the timeout text). */
export class McpCallError extends Error {
  /** The request's deadline passed (the model sees the timeout text). */
  readonly timedOut: boolean;

  constructor(message: string, opts: { timedOut?: boolean } = {}) {
    super(message);
    this.name = "McpCallError";
    this.timedOut = opts.timedOut ?? false;
  }
}

/** What a failed request was, for its model-facing message. */
export interface FailedRequest {
  server: string;
  /** `tools/call`, `resources/read`, ... */
  what: string;
  timeoutMs: number;
  /** The caller aborted it (the SDK rejects an aborted request with a RequestTimeout error too). */
  aborted: boolean;
  /** Why the server's session ended, when it did. */
  deathReason: string | undefined;
}

/** Turns SDK errors into the model-facing message. */
export function explainMcpError(err: unknown, req: FailedRequest): McpCallError {
  if (err instanceof McpCallError) return err;
  if (req.aborted) return new McpCallError(`${req.what} aborted`);
  if (err instanceof McpError && err.code === (ErrorCode.RequestTimeout as number)) {
    return new McpCallError(texts.mcpTimedOut(req.what, req.timeoutMs), { timedOut: true });
  }
  if (err instanceof McpError && err.code === REPLY_REJECTED_CODE && typeof err.data === "string") {
    return new McpCallError(err.data);
  }
  if (err instanceof McpError && err.code === (ErrorCode.ConnectionClosed as number) && req.deathReason) {
    return new McpCallError(`MCP server '${req.server}' exited during ${req.what} (${req.deathReason})`);
  }
  return new McpCallError(errorMessage(err));
}
