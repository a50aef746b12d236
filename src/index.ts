/**
 * toolcall-runtime: executes the tool calls a language model emits in a coding-agent turn.
 * The package root is the public contract (DESIGN section 4) plus the built-in handlers and
 * their specs; building blocks for plugin authors live under subpath exports
 * (`toolcall-runtime/shell`, `toolcall-runtime/apply_patch`, `toolcall-runtime/process`).
 */

// protocol: model items in, tool calls, specs, outputs
export {
  FunctionCallError,
  mcpResultBody,
  HOSTED_CALL_TYPES,
  outputCallId,
  outputContent,
  outputText,
  shellOutputText,
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
  type PayloadKind,
  type ResponseInputItem,
  type ResponseItem,
  type ResponsesTool,
  type ResponsesToolsOptions,
  type ShellCallAnswer,
  type ShellCallItem,
  type ShellCallParams,
  type ShellCommandOutput,
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
  DEFAULT_TRUNCATION_POLICY,
  FileJournal,
  FlagAlreadyReadyError,
  ReadinessFlag,
  ReadinessToken,
  truncateBody,
  truncateText,
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
  FileReadLedger,
  ToolRegistry,
  ToolRegistryBuilder,
  type DynamicToolSpec,
  type FileSnapshot,
  type McpToolRef,
  type McpToolSource,
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
} from "./registry/index.js";

// policy: permissions, approvals, hooks (DESIGN section 11)
export {
  ClaudeSettingsError,
  embedderHooks,
  hookConfigWarnings,
  hooksFor,
  loadClaudeSettings,
  parseClaudeSettings,
  PermissionEngine,
  policyToolWarnings,
  type ClaudeSettings,
  type EmbedderHookEvent,
  type HookEventName,
  type LoadClaudeSettingsOptions,
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
  DockerEnvironment,
  type DockerEnvironmentOptions,
  environmentOf,
  filesOf,
  localFileOps,
  runCommand,
  type ExecEnvironmentOptions,
  type RunOptions,
  type RunResult,
} from "./sandbox/index.js";
export {
  SandboxDenial,
  type EnvironmentPolicy,
  type EscalationRequest,
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
  McpCallError,
  McpConfigError,
  McpConnectionManager,
  McpHandler,
  McpStartupError,
  McpAuthRequiredError,
  loadMcpConfig,
  parseMcpConfigJson,
  parseMcpConfigToml,
  validateMcpServersConfig,
  type McpConnectionManagerOptions,
  type McpElicitationHandler,
  type McpRequestContext,
  type McpSamplingHandler,
  type McpAuthorizationHandler,
  type McpOAuthConfig,
  type McpServerConfig,
  type McpServersConfig,
  type McpStartupSummary,
  type McpToolInfo,
} from "./mcp/index.js";

// built-in handlers and their specs
export { loadBashParser } from "./util/index.js";
export { reduceCommands, SHELL_FAMILY, type JudgedCommand, type JudgedCommands } from "./policy/index.js";
export {
  ExecHandler,
  isKnownSafeCommand,
  SHELL_COMMAND_SPEC,
  SHELL_SPEC,
  ShellCommandHandler,
  ShellHandler,
  type ExecHandlerOptions,
  type ExecRequest,
  type ShellArgs,
  type ShellCommandArgs,
  type ShellToolConfig,
} from "./handlers/shell/index.js";
export {
  EXEC_COMMAND_SPEC,
  ExecCommandHandler,
  ExecSessionManager,
  WRITE_STDIN_SPEC,
  WriteStdinHandler,
  type ExecCommandArgs,
  type UnifiedExecToolConfig,
  type WriteStdinArgs,
} from "./handlers/exec_command/index.js";
export {
  APPLY_PATCH_FREEFORM_SPEC,
  APPLY_PATCH_FUNCTION_SPEC,
  ApplyPatchHandler,
  type ApplyPatchToolConfig,
} from "./handlers/apply_patch/index.js";
export { SkillHandler, skillSpec, type SkillToolConfig } from "./handlers/skill/index.js";
export { READ_FILE_SPEC, ReadFileHandler } from "./handlers/read_file/index.js";
export { EDIT_FILE_SPEC, EditFileHandler, type EditFileToolConfig } from "./handlers/edit_file/index.js";
export { WRITE_FILE_SPEC, WriteFileHandler, type WriteFileToolConfig } from "./handlers/write_file/index.js";
export { GLOB_SPEC, GlobHandler, type GlobOptions, type GlobToolConfig } from "./handlers/glob/index.js";
export { LIST_DIR_SPEC, ListDirHandler } from "./handlers/list_dir/index.js";
export { GREP_FILES_SPEC, GrepFilesHandler, type GrepFilesOptions } from "./handlers/grep_files/index.js";
export { DEFAULT_MAX_IMAGE_BYTES, VIEW_IMAGE_SPEC, ViewImageHandler } from "./handlers/view_image/index.js";
export { UPDATE_PLAN_SPEC, UpdatePlanHandler } from "./handlers/update_plan/index.js";
export { DEFAULT_DYNAMIC_TOOL_TIMEOUT_MS, DynamicToolHandler } from "./handlers/dynamic/index.js";
export { TEST_SYNC_TOOL_SPEC, TestSyncHandler } from "./handlers/test_sync_tool/index.js";
export {
  LIST_MCP_RESOURCE_TEMPLATES_SPEC,
  LIST_MCP_RESOURCES_SPEC,
  READ_MCP_RESOURCE_SPEC,
  type McpResourceSource,
} from "./handlers/mcp_resources/index.js";

// serving a router's tools over MCP
export {
  createMcpServer,
  JsonRpcError,
  JsonRpcErrorCode,
  McpToolService,
  serveMcpHttp,
  SidecarServer,
  type McpHttpOptions,
  type McpHttpServer,
  type McpServerOptions,
  type McpToolServiceOptions,
  type SidecarInitializeParams,
  type SidecarOptions,
  type SidecarSession,
} from "./server/index.js";
