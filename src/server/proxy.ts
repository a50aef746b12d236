import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
  type ServerCapabilities,
  type ServerNotification,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";

/**
 * The MCP servers behind proxied tools (an `McpConnectionManager`), seen whole: a proxy hands
 * its client the servers' own results, listings, resources, prompts, completions and logs.
 */
export interface McpProxySource {
  onToolResult(listener: (callId: string, result: CallToolResult) => void): () => void;
  /** The server's own listing of a proxied tool, by qualified name. */
  toolDefinition(qualifiedName: string): Tool | undefined;
  serverNames(): string[];
  serverCapabilities(server: string): ServerCapabilities | undefined;
  listAllResources(signal?: AbortSignal): Promise<Map<string, Resource[]>>;
  listAllResourceTemplates(signal?: AbortSignal): Promise<Map<string, ResourceTemplate[]>>;
  readResource(server: string, uri: string, signal?: AbortSignal): Promise<ReadResourceResult>;
  forward<R>(
    server: string,
    what: string,
    run: (client: Client, options: RequestOptions) => Promise<R>,
    signal?: AbortSignal,
  ): Promise<R>;
  onServerNotification(listener: (server: string, notification: ServerNotification) => void): () => void;
}

/** What a proxy declares on top of tools: everything it can pass on. */
export const PROXY_CAPABILITIES: ServerCapabilities = {
  resources: { subscribe: true },
  prompts: {},
  logging: {},
  completions: {},
};

const MAX_PAGES = 100;

/**
 * Answers resources (list, read, templates, subscribe), prompts, completions and logging from
 * the servers behind `source`, and passes their log messages and resource updates on. Prompt
 * names are qualified like tools (`mcp__{server}__{prompt}`); resource URIs stay as they are
 * and go to the server that listed them.
 */
export function forwardToProxiedServers(server: Server, source: McpProxySource): void {
  const owners = new Map<string, string>();
  const withCapability = (key: keyof ServerCapabilities): string[] =>
    source.serverNames().filter((s) => source.serverCapabilities(s)?.[key] !== undefined);

  const listResources = async (signal: AbortSignal): Promise<Resource[]> => {
    const all = await source.listAllResources(signal);
    for (const [s, resources] of all) for (const r of resources) owners.set(r.uri, s);
    return [...all.values()].flat();
  };
  /** The server that listed `uri`; else the only one with resources; else the first that can read it. */
  const ownerOf = async (uri: string, signal: AbortSignal): Promise<string> => {
    if (!owners.has(uri)) await listResources(signal);
    const known = owners.get(uri);
    if (known !== undefined) return known;
    const candidates = withCapability("resources");
    if (candidates.length === 1) return candidates[0] as string;
    for (const s of candidates) {
      if (
        await source.readResource(s, uri, signal).then(
          () => true,
          () => false,
        )
      )
        return s;
    }
    throw new McpError(ErrorCode.InvalidParams, `no proxied MCP server has the resource ${uri}`);
  };
  const promptTarget = (name: string): { server: string; raw: string } => {
    const server = source
      .serverNames()
      .filter((s) => name.startsWith(`mcp__${s}__`))
      .sort((a, b) => b.length - a.length)[0];
    if (server === undefined) throw new McpError(ErrorCode.InvalidParams, `unknown prompt ${name}`);
    return { server, raw: name.slice(`mcp__${server}__`.length) };
  };

  server.setRequestHandler(ListResourcesRequestSchema, async (_req, extra) => ({
    resources: await listResources(extra.signal),
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async (_req, extra) => ({
    resourceTemplates: [...(await source.listAllResourceTemplates(extra.signal)).values()].flat(),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (req, extra) =>
    source.readResource(await ownerOf(req.params.uri, extra.signal), req.params.uri, extra.signal),
  );
  server.setRequestHandler(SubscribeRequestSchema, async (req, extra) => {
    const owner = await ownerOf(req.params.uri, extra.signal);
    await source.forward(owner, "resources/subscribe", (c, o) => c.subscribeResource(req.params, o), extra.signal);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (req, extra) => {
    const owner = await ownerOf(req.params.uri, extra.signal);
    await source.forward(owner, "resources/unsubscribe", (c, o) => c.unsubscribeResource(req.params, o), extra.signal);
    return {};
  });

  server.setRequestHandler(ListPromptsRequestSchema, async (_req, extra) => {
    const prompts: Prompt[] = [];
    for (const s of withCapability("prompts")) {
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const r = await source.forward(
          s,
          "prompts/list",
          (c, o) => c.listPrompts(cursor === undefined ? {} : { cursor }, o),
          extra.signal,
        );
        prompts.push(...r.prompts.map((p) => ({ ...p, name: `mcp__${s}__${p.name}` })));
        cursor = r.nextCursor;
        if (cursor === undefined) break;
      }
    }
    return { prompts };
  });
  server.setRequestHandler(GetPromptRequestSchema, async (req, extra) => {
    const { server: s, raw } = promptTarget(req.params.name);
    return source.forward(s, "prompts/get", (c, o) => c.getPrompt({ ...req.params, name: raw }, o), extra.signal);
  });
  server.setRequestHandler(CompleteRequestSchema, async (req, extra) => {
    const { ref } = req.params;
    if (ref.type === "ref/prompt") {
      const { server: s, raw } = promptTarget(ref.name);
      const params = { ...req.params, ref: { ...ref, name: raw } };
      return source.forward(s, "completion/complete", (c, o) => c.complete(params, o), extra.signal);
    }
    const templates = await source.listAllResourceTemplates(extra.signal);
    const owner = [...templates].find(([, list]) => list.some((t) => t.uriTemplate === ref.uri))?.[0];
    const s = owner ?? (await ownerOf(ref.uri, extra.signal));
    return source.forward(s, "completion/complete", (c, o) => c.complete(req.params, o), extra.signal);
  });
  server.setRequestHandler(SetLevelRequestSchema, async (req, extra) => {
    await Promise.all(
      withCapability("logging").map((s) =>
        source.forward(s, "logging/setLevel", (c, o) => c.setLoggingLevel(req.params.level, o), extra.signal),
      ),
    );
    return {};
  });

  const stop = source.onServerNotification((_from, n) => {
    const sent =
      n.method === "notifications/message"
        ? server.sendLoggingMessage(n.params)
        : n.method === "notifications/resources/updated"
          ? server.sendResourceUpdated(n.params)
          : undefined;
    sent?.catch(() => undefined); // the client went away
  });
  const closed = server.onclose;
  server.onclose = () => {
    stop();
    closed?.();
  };
}
