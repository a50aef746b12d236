/**
 * The `serveMcp` scenario's baseline: the two raw hops, built from the SDK alone. An MCP server
 * on stdio whose `tools/call` is the SDK client's `callTool` to the upstream server (argv: its
 * command and arguments); `tools/list` passes the upstream list through.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [command, ...args] = process.argv.slice(2);
if (!command) throw new Error("usage: rawProxy COMMAND [ARGS...]");
const upstream = new Client({ name: "raw-proxy", version: "1.0.0" });
await upstream.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
const server = new Server({ name: "raw-proxy", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => upstream.listTools());
server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
  upstream.callTool(request.params, undefined, { signal: extra.signal }),
);
await server.connect(new StdioServerTransport());
process.stdin.once("end", () => {
  void upstream.close().then(() => process.exit(0));
});
