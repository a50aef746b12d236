import { FunctionCallError, type ToolOutput } from "../../protocol/index.js";
import type { ToolHandler, ToolInvocation } from "../../registry/index.js";
import { errorMessage } from "../../util/index.js";
import { optionalString, type McpResourceSource } from "./source.js";

/** `read_mcp_resource`: `{ server, uri, contents: [...] }` as JSON (bounded by the truncation policy). */
export class McpReadResourceHandler implements ToolHandler {
  readonly kind = "function" as const;

  constructor(private readonly source: McpResourceSource) {}

  async handle(inv: ToolInvocation): Promise<ToolOutput> {
    const args = (inv.args ?? {}) as Record<string, unknown>;
    const server = optionalString(args, "server");
    const uri = optionalString(args, "uri");
    if (server === undefined) throw FunctionCallError.respondToModel("read_mcp_resource requires a non-empty server");
    if (uri === undefined) throw FunctionCallError.respondToModel("read_mcp_resource requires a non-empty uri");
    try {
      const result = await this.source.readResource(server, uri, inv.signal);
      return { kind: "function", body: JSON.stringify({ server, uri, ...result }) };
    } catch (err) {
      throw FunctionCallError.respondToModel(`resources/read failed: ${errorMessage(err)}`);
    }
  }
}
