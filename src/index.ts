/**
 * toolcall-runtime: executes the tool calls a language model emits in a coding-agent turn.
 * The package root is the public contract (DESIGN sections 4, 11-14, 16, 17) and the types that
 * spell it. The rest is under subpaths, one export list each (src/subpaths/, docs/embedding.md):
 * `/handlers` (built-in handlers and specs), `/policy`, `/sandbox`, `/mcp`, `/server`; building
 * blocks for plugin authors under `/shell`, `/apply_patch`, `/process`; framework adapters under
 * `/ai-sdk`, `/openai-agents`, `/langchain`.
 */

// protocol: model items in, tool calls, specs, outputs
export {
  FunctionCallError,
  outputCallId,
  outputContent,
  outputText,
  specName,
  toAnthropicTools,
  toChatCompletionsTools,
  toMcpTools,
  toResponsesTools,
  type AnthropicTool,
  type ApplyPatchCallItem,
  type ApplyPatchOperation,
  type CallToolResult,
  type ChatCompletionsTool,
  type ChatCompletionsToolsOptions,
  type ConfiguredToolSpec,
  type ContentItem,
  type ImageDetail,
  type CustomToolCallItem,
  type CustomToolSpec,
  type FunctionCallErrorKind,
  type FunctionCallItem,
  type FunctionToolSpec,
  type JsonSchema,
  type LocalShellCallItem,
  type LocalShellExecAction,
  type LocalShellToolSpec,
  type McpToolDescription,
  type ResponseInputItem,
  type ResponseItem,
  type ResponsesTool,
  type ResponsesToolsOptions,
  type ShellCallItem,
  type ShellToolCallParams,
  type ToolCall,
  type ToolOutput,
  type ToolPayload,
  type ToolSpec,
  type UnknownItem,
} from "./protocol/index.js";

// adapters: provider formats in and out (DESIGN section 13)
export {
  fromAnthropic,
  fromChatCompletions,
  toAnthropicToolResults,
  toChatCompletionsMessages,
  type AnthropicContentBlock,
  type AnthropicImageBlock,
  type AnthropicTextBlock,
  type AnthropicToolResultBlock,
  type AnthropicToolUseBlock,
  type ChatMessage,
  type ChatToolCall,
  type ChatToolMessage,
  type ChatUserMessage,
  type OutputLike,
} from "./adapters/index.js";

// turn: what one turn shares
export {
  createTurnContext,
  FileJournal,
  FlagAlreadyReadyError,
  ReadinessFlag,
  ReadinessToken,
  type ArgumentRepair,
  type DynamicToolResponse,
  type FileJournalOptions,
  type JournalEvent,
  type JournalRecord,
  type TurnJournal,
  type PlanStatus,
  type UserInputQuestion,
  type UserInputResponse,
  type Timing,
  type ToolEvent,
  type ToolEventType,
  type TruncationPolicy,
  type TurnContext,
} from "./turn/index.js";

// registry: handlers and how they are registered
export {
  ToolRegistry,
  ToolRegistryBuilder,
  type DynamicToolSpec,
  type RegisteredTool,
  type ToolFactory,
  type ToolFactoryContext,
  type ToolHandler,
  type ToolInvocation,
  type ToolKind,
  type ToolRegistration,
  type ToolMiddleware,
  type PushSpecOptions,
  type PolicySubject,
  schemaHandler,
  type SchemaOutput,
  type SchemaToolSpec,
  type StandardSchema,
  type ToolSpecInput,
} from "./registry/index.js";

// policy: permissions, approvals, hooks (DESIGN section 11)
export {
  embedderHooks,
  PermissionEngine,
  type EmbedderHookEvent,
  type HookEventName,
  type ApprovalDecision,
  type ApprovalRequest,
  type DecidedBy,
  type HookCommand,
  type HookConfig,
  type HookMatcher,
  type PermissionDecider,
  type PermissionMode,
  type PermissionPolicy,
  type PolicyCall,
  type PolicyVerdict,
  type RiskLevel,
} from "./policy/index.js";

// sandbox: where commands run and files are written (DESIGN section 12); containers (section 16)
export {
  createDockerEnvironment,
  createExecEnvironment,
  type DockerEnvironmentOptions,
  type DockerEngineOptions,
  DockerPool,
  type DockerPoolHostCount,
  type DockerPoolOptions,
  type DockerVolumeOptions,
  type ExecEnvironmentOptions,
} from "./sandbox/index.js";
export {
  type EnvironmentPolicy,
  type DirEntry,
  type ExecEnvironment,
  type FileKind,
  type FileOps,
  type FileStat,
  type SandboxMode,
  type SandboxPolicy,
  type SpawnedProcess,
  type SpawnRequest,
} from "./protocol/index.js";

// router, runtime and the composition root
export { ToolCallFailure, ToolRouter, type BuiltToolCall } from "./router/index.js";
export { type PreparedCall, type DispatchOptions, type DispatchResult } from "./dispatch/index.js";
export {
  FatalToolCallError,
  ToolCallRuntime,
  type SubmitResult,
  type ToolCallOutcome,
  type ToolCallRuntimeOptions,
} from "./runtime/index.js";
export { createToolRouter, type CreateToolRouterOptions, type ToolsConfig } from "./toolset.js";
// forgiving where it is safe (DESIGN section 18): what each tool cost, quotas
export type { QuotaConfig, QuotaLimit, ToolUsage } from "./ledger/index.js";

// MCP
export {
  McpConnectionManager,
  type McpConnectionManagerOptions,
  type McpElicitationHandler,
  type McpRequestContext,
  type McpSamplingHandler,
  type McpAuthorizationHandler,
  type McpOAuthConfig,
  type McpServerConfig,
  type McpServersConfig,
  type McpStartupSummary,
} from "./mcp/index.js";

// serving a router's tools over MCP (the HTTP transport and the sidecar: toolcall-runtime/server)
export { createMcpServer, type McpServerOptions } from "./server/index.js";
