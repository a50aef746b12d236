import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import {
  toMcpContent,
  type ApprovalDecision,
  type ApprovalRequest,
  toMcpTools,
  type CustomToolCallItem,
  type FunctionCallItem,
} from "../protocol/index.js";
import type { ToolRouter } from "../router/index.js";
import { FatalToolCallError, ToolCallRuntime } from "../runtime/index.js";
import type { ToolEvent, TurnContext } from "../turn/index.js";
import { errorMessage, PACKAGE_VERSION } from "../util/index.js";

/** Asks the MCP client that made a call to approve it (elicitation); undefined: it cannot. */
export type ClientApprover = (req: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision | undefined>;

const DECISION_SCHEMA = {
  type: "object" as const,
  properties: {
    decision: {
      type: "string" as const,
      title: "Decision",
      enum: ["allow", "allow_session", "deny"],
      description: "allow once, allow for the rest of the session, or deny",
    },
  },
  required: ["decision"],
};

/** What a proxied MCP tool reported, to pass on as `notifications/progress`. */
export type ToolProgress = { progress: number; total?: number; message?: string };

export interface McpToolServiceOptions {
  /** The tools served: its registered tools and the MCP tools it proxies. */
  router: ToolRouter;
  /** The turn every call runs in. Its `onEvent` should reach `McpToolService.onEvent`, for progress. */
  turn: TurnContext;
  /** Calls running at once; default 128 (`DEFAULT_SERVE_CONCURRENCY`). */
  maxConcurrency?: number | undefined;
}

/**
 * Above the runtime's 16: a client fans read-only calls out (to a proxied server, say), and 100
 * of them through 16 slots took 2.3× as long as two raw SDK hops, through 64 1.7×, through 128
 * 1.2-1.45× (bench `serveMcp`). Exclusive calls still run alone.
 */
export const DEFAULT_SERVE_CONCURRENCY = 128;

function failure(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/**
 * A router's tools behind MCP: every `tools/call` runs through one `ToolCallRuntime` (lock,
 * gate, truncation), aborted by the request's cancellation. One service may back many
 * `createMcpServer` servers (one per HTTP session) so they share the lock.
 */
export class McpToolService {
  private runtime: ToolCallRuntime;
  /** Progress listeners of running calls, by our call id. */
  private readonly progress = new Map<string, (p: ToolProgress) => void>();
  /** How to ask the client behind each running call, by our call id. */
  private readonly approvers = new Map<string, ClientApprover>();

  constructor(private readonly opts: McpToolServiceOptions) {
    this.runtime = this.newRuntime();
  }

  private newRuntime(): ToolCallRuntime {
    const { router, turn, maxConcurrency } = this.opts;
    return new ToolCallRuntime(router, turn, { maxConcurrency: maxConcurrency ?? DEFAULT_SERVE_CONCURRENCY });
  }

  /** The router's tools now, each marked read-only or destructive as the router judges it. */
  listTools(): Tool[] {
    const { router } = this.opts;
    return toMcpTools(router.specs()).map((tool) => {
      const readOnly = router.toolIsReadOnly(tool.name);
      return { ...tool, annotations: { readOnlyHint: readOnly, ...(readOnly ? {} : { destructiveHint: true }) } };
    });
  }

  /** The turn's event listener: forwards proxied tools' progress to the caller that asked for it. */
  onEvent(event: ToolEvent): void {
    if (event.type !== "mcp_tool_call_progress") return;
    const { progress, total, message } = event;
    this.progress.get(event.callId)?.({
      progress,
      ...(total !== undefined && { total }),
      ...(message !== undefined && { message }),
    });
  }

  /**
   * The approver for the turn's permission engine (`PermissionPolicy.approve`): asks the
   * client that made the call, when it supports elicitation; else nobody can answer.
   */
  approve(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision | undefined> {
    const ask = this.approvers.get(req.callId);
    return ask ? ask(req, signal) : Promise.resolve(undefined);
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    onProgress?: (p: ToolProgress) => void,
    approver?: ClientApprover,
  ): Promise<CallToolResult> {
    const { router } = this.opts;
    const spec = router.registeredSpec(name);
    const callId = `mcp_${randomUUID()}`;
    let item: FunctionCallItem | CustomToolCallItem;
    if (spec?.type === "custom") {
      const input = args["input"];
      if (typeof input !== "string") return failure(`invalid arguments for ${name}: /input must be a string`);
      item = { type: "custom_tool_call", call_id: callId, name, input };
    } else {
      item = { type: "function_call", call_id: callId, name, arguments: JSON.stringify(args) };
    }
    let call;
    try {
      call = router.buildToolCall(item);
    } catch (err) {
      return failure(errorMessage(err));
    }
    if (!call) return failure(`unsupported call: ${name}`);
    // A fatal error aborts the runtime it happened in; later requests get a fresh one.
    if (this.runtime.aborted) this.runtime = this.newRuntime();
    if (onProgress) this.progress.set(callId, onProgress);
    if (approver) this.approvers.set(callId, approver);
    try {
      const outcome = await this.runtime.handleToolCall(call, signal);
      return { content: toMcpContent(outcome.item.output), isError: !outcome.success };
    } catch (err) {
      if (err instanceof FatalToolCallError) return failure(err.message);
      throw err;
    } finally {
      this.progress.delete(callId);
      this.approvers.delete(callId);
    }
  }

  /** Aborts calls still running (their children are killed). */
  abort(): void {
    this.runtime.abort("server shutting down");
  }
}

export interface McpServerOptions {
  /** The server's name in `initialize`; default "toolcall". */
  name?: string | undefined;
  /** Its version; default the package's. */
  version?: string | undefined;
}

/**
 * An MCP SDK `Server` answering `tools/list` and `tools/call` from `service`; connect it to
 * any server transport (stdio, Streamable HTTP, in-memory).
 */
export function createMcpServer(service: McpToolService, opts: McpServerOptions = {}): Server {
  const info = { name: opts.name ?? "toolcall", version: opts.version ?? PACKAGE_VERSION };
  const server = new Server(info, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: service.listTools() }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const token = request.params._meta?.progressToken;
    const sent: Array<Promise<void>> = [];
    const onProgress =
      token === undefined
        ? undefined
        : (p: ToolProgress) =>
            void sent.push(
              extra
                .sendNotification({ method: "notifications/progress", params: { progressToken: token, ...p } })
                .catch(() => undefined), // the client went away; the call's own result tells the rest
            );
    const result = await service.callTool(
      request.params.name,
      request.params.arguments ?? {},
      extra.signal,
      onProgress,
      server.getClientCapabilities()?.elicitation ? (req, signal) => elicitApproval(server, req, signal) : undefined,
    );
    // Progress after its result is dropped by the client: let every notification go out first.
    await Promise.all(sent);
    return result;
  });
  return server;
}

/** An approval request as an MCP elicitation (form mode): accept with a decision, else a denial. */
async function elicitApproval(server: Server, req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
  const result = await server.elicitInput(
    { message: `Allow ${req.toolName}? ${req.reason}\n${req.summary}`, requestedSchema: DECISION_SCHEMA },
    { signal },
  );
  const decision = result.content?.["decision"];
  if (result.action !== "accept") return { decision: "deny", message: `the client answered ${result.action}` };
  return decision === "allow" || decision === "allow_session" ? { decision } : { decision: "deny" };
}
