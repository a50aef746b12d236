import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  type ClientCapabilities,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitResult,
  type ServerNotification,
} from "@modelcontextprotocol/sdk/types.js";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { PACKAGE_VERSION } from "../util/index.js";
import type { McpAuthorizationHandler } from "./oauth.js";

const DECLINE: ElicitResult = { action: "decline" };
const CLIENT_INFO = { name: "toolcall-runtime", version: PACKAGE_VERSION };

/** Which server asks, and a signal aborted when the server cancels its request. */
export interface McpRequestContext {
  server: string;
  signal: AbortSignal;
}

/** Answers a server's `elicitation/create` (form mode); the schema's defaults fill omitted fields. */
export type McpElicitationHandler = (params: ElicitRequest["params"], ctx: McpRequestContext) => Promise<ElicitResult>;
/** Answers a server's `sampling/createMessage` with the embedder's model. */
export type McpSamplingHandler = (
  params: CreateMessageRequest["params"],
  ctx: McpRequestContext,
) => Promise<CreateMessageResult>;

/** What the client offers servers (DESIGN section 14). */
export interface McpClientCallbacks {
  /** Without it every elicitation is answered `{ action: "decline" }`. */
  onElicitation?: McpElicitationHandler | undefined;
  /** Sampling is declared only when this is given. */
  onSampling?: McpSamplingHandler | undefined;
  /** The roots now (absolute paths), read at each `roots/list`. */
  roots(): readonly string[];
  /** Shows a person the URL that authorizes a server (OAuth authorization code flow). */
  onAuthorizationUrl?: McpAuthorizationHandler | undefined;
  /** Where OAuth tokens are kept; default `$TOOLCALL_HOME`. */
  oauthHome?: string | undefined;
  /** The server's other notifications (log messages, resource updates), for a proxy to pass on. */
  onNotification?: ((server: string, notification: ServerNotification) => void) | undefined;
}

/** What the connection does when the server speaks first. */
export interface ServerRequestHooks {
  /** `notifications/tools/list_changed`. */
  onToolsListChanged(): Promise<void>;
  /** Runs the answer to a server request (the calls' deadlines wait meanwhile). */
  paused<T>(run: () => Promise<T>): Promise<T>;
}

/**
 * A client for `server` that answers the server's own requests: elicitation and sampling go
 * to the embedder's callbacks, `roots/list` to its roots, notifications to the connection.
 * `sdkClient`: the SDK's `Client` class, imported when the first server starts (`connectClient`).
 */
export function newMcpClient(
  sdkClient: typeof Client,
  server: string,
  callbacks: McpClientCallbacks,
  hooks: ServerRequestHooks,
): Client {
  const { onElicitation, onSampling, onNotification } = callbacks;
  const capabilities: ClientCapabilities = {
    // Always declared: without a callback the answer is a decline, never -32601.
    elicitation: { form: { applyDefaults: true } },
    roots: { listChanged: true },
    ...(onSampling && { sampling: {} }),
  };
  const client = new sdkClient(CLIENT_INFO, { capabilities });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => hooks.onToolsListChanged());
  if (onNotification) {
    for (const schema of [LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema]) {
      client.setNotificationHandler(schema, (n) => {
        onNotification(server, n);
      });
    }
  }
  client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
    hooks.paused(async () =>
      onElicitation ? onElicitation(request.params, { server, signal: extra.signal }) : DECLINE,
    ),
  );
  if (onSampling) {
    client.setRequestHandler(CreateMessageRequestSchema, (request, extra) =>
      hooks.paused(() => onSampling(request.params, { server, signal: extra.signal })),
    );
  }
  client.setRequestHandler(ListRootsRequestSchema, () => ({
    roots: callbacks.roots().map((p) => ({ uri: pathToFileURL(p).href, name: path.basename(p) || p })),
  }));
  return client;
}
