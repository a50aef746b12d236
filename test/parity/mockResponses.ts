import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { withSessionIds } from "./sessionIds.js";

/** What Codex sent: the body of each `POST /v1/responses`, in order. */
export interface MockResponsesServer {
  baseUrl: string;
  requests: Array<{ input: Array<Record<string, unknown>>; tools: Array<Record<string, unknown>> }>;
  close(): Promise<void>;
}

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
};

/**
 * A Responses API on 127.0.0.1 that streams `rounds[n]` as the output items of the n-th
 * request (server-sent events, as the real API does), then a final assistant message.
 */
export async function startMockResponses(rounds: ReadonlyArray<ReadonlyArray<unknown>>): Promise<MockResponsesServer> {
  const requests: MockResponsesServer["requests"] = [];
  const server: Server = createServer((req, res) => {
    void readBody(req).then((body) => {
      if (req.method !== "POST" || !req.url?.endsWith("/responses")) {
        res.writeHead(404, { "content-type": "application/json" }).end("{}");
        return;
      }
      const n = requests.length;
      requests.push(JSON.parse(body) as MockResponsesServer["requests"][number]);
      const seen = new Map<string, string>();
      for (const item of requests[n]?.input ?? []) {
        if (typeof item.call_id === "string" && typeof item.output === "string") seen.set(item.call_id, item.output);
      }
      const items = withSessionIds(rounds[n], seen) ?? [
        { type: "message", role: "assistant", id: `msg_${n}`, content: [{ type: "output_text", text: "done" }] },
      ];
      res.writeHead(200, { "content-type": "text/event-stream" });
      const send = (event: Record<string, unknown>): void => {
        res.write(`event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`);
      };
      const id = `resp_${n}`;
      send({ type: "response.created", response: { id } });
      for (const item of items) send({ type: "response.output_item.done", item });
      const usage = { input_tokens: 1, input_tokens_details: null, output_tokens: 1, output_tokens_details: null };
      send({ type: "response.completed", response: { id, usage: { ...usage, total_tokens: 2 } } });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      ),
  };
}
