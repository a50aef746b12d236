#!/usr/bin/env node
/**
 * The demo's example MCP server (stdio): `word_count` answers at once, `slow_review` takes a
 * while and reports progress. Both are read-only, so the runtime may run them in parallel.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";

const server = new Server({ name: "toolcall-demo", version: "1.0.0" }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    {
      name: "word_count",
      description: "Counts the words and lines of a text.",
      inputSchema: {
        type: "object",
        properties: { text: { type: "string" } },
        required: ["text"],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true },
    },
    {
      name: "slow_review",
      description: "Reviews a topic of the code base (slow: takes delay_ms milliseconds).",
      inputSchema: {
        type: "object",
        properties: { topic: { type: "string" }, delay_ms: { type: "integer", minimum: 0, maximum: 10000 } },
        required: ["topic"],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true },
    },
  ],
}));

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(new Error("cancelled"));
      },
      { once: true },
    );
  });

server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
  const args = request.params.arguments ?? {};
  switch (request.params.name) {
    case "word_count": {
      const text = typeof args["text"] === "string" ? args["text"] : "";
      const words = text.split(/\s+/).filter(Boolean).length;
      const lines = text === "" ? 0 : text.split("\n").length;
      return { content: [{ type: "text", text: `${words} words, ${lines} lines` }] };
    }
    case "slow_review": {
      const total = typeof args["delay_ms"] === "number" ? args["delay_ms"] : 1200;
      const token = request.params._meta?.progressToken;
      const steps = 4;
      for (let step = 1; step <= steps; step++) {
        await sleep(total / steps, extra.signal);
        if (token !== undefined) {
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, progress: step, total: steps },
          });
        }
      }
      const topic = typeof args["topic"] === "string" ? args["topic"] : "";
      return { content: [{ type: "text", text: `Review of ${topic}: main() returns a constant; consider a test.` }] };
    }
    default:
      return { content: [{ type: "text", text: `unknown tool: ${request.params.name}` }], isError: true };
  }
});

await server.connect(new StdioServerTransport());
