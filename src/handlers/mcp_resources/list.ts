import { FunctionCallError, type ToolOutput } from "../../protocol/index.js";
import type { ToolHandler, ToolInvocation } from "../../registry/index.js";
import { errorMessage, optionalString, type McpResourceSource } from "./source.js";

type Entry = Record<string, unknown>;

/** What differs between `list_mcp_resources` and `list_mcp_resource_templates`. */
export interface ListKind {
  /** The MCP method, for error texts. */
  method: string;
  /** The output's list key: `resources` or `resourceTemplates`. */
  key: string;
  page(source: McpResourceSource, server: string, cursor: string | undefined, signal: AbortSignal): Promise<{ items: Entry[]; nextCursor?: string | undefined }>;
  all(source: McpResourceSource, signal: AbortSignal): Promise<Map<string, Entry[]>>;
}

export const RESOURCES: ListKind = {
  method: "resources/list",
  key: "resources",
  page: async (s, server, cursor, signal) => {
    const r = await s.listResources(server, cursor, signal);
    return { items: r.resources, nextCursor: r.nextCursor };
  },
  all: (s, signal) => s.listAllResources(signal),
};

export const RESOURCE_TEMPLATES: ListKind = {
  method: "resources/templates/list",
  key: "resourceTemplates",
  page: async (s, server, cursor, signal) => {
    const r = await s.listResourceTemplates(server, cursor, signal);
    return { items: r.resourceTemplates, nextCursor: r.nextCursor };
  },
  all: (s, signal) => s.listAllResourceTemplates(signal),
};

/**
 * One page of one server (`server` given, `cursor` passed through) or every page of every
 * server (no `server`): `{ server?, <key>: [{ server, ...entry }], nextCursor? }` as JSON,
 * servers sorted by name.
 */
export class McpListHandler implements ToolHandler<unknown> {
  readonly kind = "function" as const;

  constructor(
    private readonly source: McpResourceSource,
    private readonly list: ListKind,
  ) {}

  async handle(inv: ToolInvocation<unknown>): Promise<ToolOutput> {
    const args = (inv.args ?? {}) as Record<string, unknown>;
    const server = optionalString(args, "server");
    const cursor = optionalString(args, "cursor");
    const { key, method } = this.list;
    if (server === undefined) {
      if (cursor !== undefined) throw FunctionCallError.respondToModel("cursor can only be used when a server is specified");
      const byServer = await this.list.all(this.source, inv.signal);
      const entries = [...byServer].flatMap(([name, items]) => items.map((item) => ({ server: name, ...item })));
      return { kind: "function", body: JSON.stringify({ [key]: entries }) };
    }
    let page: { items: Entry[]; nextCursor?: string | undefined };
    try {
      page = await this.list.page(this.source, server, cursor, inv.signal);
    } catch (err) {
      throw FunctionCallError.respondToModel(`${method} failed: ${errorMessage(err)}`);
    }
    const body = { server, [key]: page.items.map((item) => ({ server, ...item })), ...(page.nextCursor && { nextCursor: page.nextCursor }) };
    return { kind: "function", body: JSON.stringify(body) };
  }
}
