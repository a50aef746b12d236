import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import {
  type ApprovalDecision,
  type ApprovalRequest,
  toMcpTools,
  type CustomToolCallItem,
  type FunctionCallItem,
  type PermissionDecider,
  type ToolCall,
} from "../protocol/index.js";
import { ToolRouter } from "../router/index.js";
import { forwardToProxiedServers, PROXY_CAPABILITIES, type McpProxySource } from "./proxy.js";
import { FatalToolCallError, ToolCallRuntime } from "../runtime/index.js";
import { createTurnContext, type ToolEvent, type TurnContext } from "../turn/index.js";
import { errorMessage, PACKAGE_VERSION } from "../util/index.js";
import { clientCallId, McpCallJournal, type RecordOutcome } from "./mcpJournal.js";
import { failure, resultOf } from "./mcpResult.js";

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
  /** The manager behind the router's MCP tools: their results and schemas pass through unchanged. */
  proxy?: McpProxySource | undefined;
  /**
   * The turn every call runs in. Its `onEvent` should reach `McpToolService.onEvent`, for
   * progress. With a `journal`, a call the client names in `_meta` ("toolcall/callId" or
   * "claudecode/toolUseId") is journaled: retried, it is answered from the journal and never
   * runs twice (DESIGN section 17).
   */
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

  /** Whole results of proxied calls running now, by our call id (undefined until it answers). */
  private readonly whole = new Map<string, CallToolResult | undefined>();
  private readonly stopTap: (() => unknown) | undefined;
  /** Call ids are this service's random prefix and a count: unique without a UUID per call. */
  private readonly callIdPrefix = `${randomUUID().slice(0, 8)}_`;
  private calls = 0;
  /** The turn's journal's side for calls the client names; the runtime's turn reports to it. */
  private readonly journal: McpCallJournal | undefined;
  private readonly turn: TurnContext;

  constructor(private readonly opts: McpToolServiceOptions) {
    const { journal, ...turn } = opts.turn;
    this.journal = journal && new McpCallJournal(journal, opts.router, turn.logger);
    // Not the runtime's own journal (one turn for every call): each named call is its own turn.
    this.turn = this.journal ? { ...turn, callJournal: this.journal } : opts.turn;
    this.runtime = this.newRuntime();
    this.stopTap = opts.proxy?.onToolResult((callId, result) => {
      if (this.whole.has(callId)) this.whole.set(callId, result);
    });
  }

  private newRuntime(): ToolCallRuntime {
    const { router, maxConcurrency } = this.opts;
    return new ToolCallRuntime(router, this.turn, { maxConcurrency: maxConcurrency ?? DEFAULT_SERVE_CONCURRENCY });
  }

  /** The router's tools now, each marked read-only or destructive as the router judges it. */
  listTools(): Tool[] {
    const { router, proxy } = this.opts;
    return toMcpTools(router.specs()).map((tool) => {
      const readOnly = router.toolIsReadOnly(tool.name);
      const own = proxy?.toolDefinition(tool.name);
      if (own) {
        // A proxied tool keeps what its server said (title, output schema, hints, _meta).
        const { name: _raw, inputSchema: _schema, description: _text, ...rest } = own;
        const destructive = readOnly ? {} : { destructiveHint: own.annotations?.destructiveHint ?? true };
        return { ...rest, ...tool, annotations: { ...own.annotations, readOnlyHint: readOnly, ...destructive } };
      }
      // The spec's own hints stay (idempotent, open world); an unmarked tool that may change
      // things is destructive, one its spec calls read-only (update_plan) is not.
      const hints = tool.annotations;
      const destructive = readOnly ? {} : { destructiveHint: hints?.destructiveHint ?? hints?.readOnlyHint !== true };
      return { ...tool, annotations: { ...hints, readOnlyHint: readOnly, ...destructive } };
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

  /**
   * Runs one `tools/call`. `meta` is the request's `_meta`: with a journal, the call id a client
   * names there makes a retried request answered from the journal, never run twice.
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    onProgress?: (p: ToolProgress) => void,
    approver?: ClientApprover,
    meta?: unknown,
  ): Promise<CallToolResult> {
    const { router } = this.opts;
    const journal = this.journal;
    let key: string | undefined;
    try {
      key = journal && clientCallId(meta);
    } catch (err) {
      throw new McpError(ErrorCode.InvalidParams, errorMessage(err));
    }
    const spec = router.registeredSpec(name);
    const named = journal && key !== undefined ? { journal, key } : undefined;
    const callId = named ? named.journal.callIdOf(named.key) : `mcp_${this.callIdPrefix}${++this.calls}`;
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
    // A protocol error, as the MCP specification says for an unknown tool (not an `isError` result).
    if (!call || !router.toolFor(call)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const known = call;
    const run = (record?: RecordOutcome) => this.run(known, signal, onProgress, approver, record);
    return named ? named.journal.once(named.key, item, run) : run();
  }

  private async run(
    call: ToolCall,
    signal: AbortSignal,
    onProgress: ((p: ToolProgress) => void) | undefined,
    approver: ClientApprover | undefined,
    record: RecordOutcome | undefined,
  ): Promise<CallToolResult> {
    const { callId } = call;
    // A fatal error aborts the runtime it happened in; later requests get a fresh one.
    if (this.runtime.aborted) this.runtime = this.newRuntime();
    if (onProgress) this.progress.set(callId, onProgress);
    if (approver) this.approvers.set(callId, approver);
    if (this.opts.proxy) this.whole.set(callId, undefined);
    try {
      const outcome = await this.runtime.handleToolCall(call, signal);
      // Journaled: durable before the client hears it.
      await record?.(outcome);
      // A proxied server's answer goes out as it came (flattening is for the model only).
      const whole = this.whole.get(callId);
      if (whole && !outcome.aborted) return whole;
      return resultOf(outcome.item, outcome.success);
    } catch (err) {
      if (err instanceof FatalToolCallError) return failure(err.message);
      throw err;
    } finally {
      this.progress.delete(callId);
      this.approvers.delete(callId);
      this.whole.delete(callId);
    }
  }

  /** The servers behind the proxied tools, when the service was given them. */
  get proxy(): McpProxySource | undefined {
    return this.opts.proxy;
  }

  /** Aborts calls still running (their children are killed). */
  abort(): void {
    this.runtime.abort("server shutting down");
    this.stopTap?.();
  }
}

export interface McpServerOptions {
  /** The server's name in `initialize`; default "toolcall". */
  name?: string | undefined;
  /** Its version; default the package's. */
  version?: string | undefined;
  /** Given a router: the turn its calls run in (cwd, permissions, environment...). */
  turn?: Partial<TurnContext> | undefined;
  /** Given a router: calls running at once (default: the runtime's). */
  maxConcurrency?: number | undefined;
}

/**
 * An MCP SDK `Server` answering `tools/list` and `tools/call` from a router's tools; connect
 * it to any server transport (stdio, Streamable HTTP, in-memory). Given a router, the server
 * gets its own `McpToolService` (one runtime, a turn from `opts.turn`; approvals asked of the
 * client by elicitation when the turn's permission engine has no `approve` of its own).
 * Given a service, servers share it: one lock for every HTTP session.
 */
export function createMcpServer(source: ToolRouter | McpToolService, opts: McpServerOptions = {}): Server {
  const service = source instanceof ToolRouter ? serviceFor(source, opts) : source;
  const info = { name: opts.name ?? "toolcall", version: opts.version ?? PACKAGE_VERSION };
  const { proxy } = service;
  const server = new Server(info, { capabilities: { tools: {}, ...(proxy && PROXY_CAPABILITIES) } });
  if (proxy) forwardToProxiedServers(server, proxy);
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
      request.params._meta,
    );
    // Progress after its result is dropped by the client: let every notification go out first.
    await Promise.all(sent);
    return result;
  });
  return server;
}

function serviceFor(router: ToolRouter, opts: McpServerOptions): McpToolService {
  const listener = opts.turn?.onEvent;
  const permissions = opts.turn?.permissions;
  const turn = createTurnContext({
    ...opts.turn,
    onEvent: (event) => {
      listener?.(event);
      service.onEvent(event);
    },
    // A policy with nobody to ask asks the client that made the call (else the no-approver rule).
    ...(permissions &&
      !permissions.approve &&
      permissions.nonInteractive !== true && {
        permissions: askingTheClient(permissions, (req, signal) => service.approve(req, signal)),
      }),
  });
  const service: McpToolService = new McpToolService({ router, turn, maxConcurrency: opts.maxConcurrency });
  return service;
}

/** `decider` with `approve` set: every decision stays its own. */
function askingTheClient(
  decider: PermissionDecider,
  approve: NonNullable<PermissionDecider["approve"]>,
): PermissionDecider {
  return {
    get mode() {
      return decider.mode;
    },
    approve,
    get approvalTimeoutMs() {
      return decider.approvalTimeoutMs;
    },
    get riskField() {
      return decider.riskField;
    },
    get askAtRisk() {
      return decider.askAtRisk;
    },
    decide: (call, hook) => decider.decide(call, hook),
    suggestRules: (call, fromHandler) => decider.suggestRules(call, fromHandler),
    rememberSession: (rule) => {
      decider.rememberSession(rule);
    },
  };
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
