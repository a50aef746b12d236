import { formatSeconds, formatSecondsExact } from "../util/index.js";

/**
 * Every model-facing text the core writes (DESIGN section 6), in one place: models trained on
 * Codex read these exact words, so they change here or nowhere.
 */
export const texts = {
  /** `suggestion`: the one offered tool the name folds to (DESIGN section 18); it is not run. */
  unsupportedCall: (name: string, custom: boolean, suggestion?: string): string =>
    `${custom ? "unsupported custom tool call" : "unsupported call"}: ${name}${suggestion === undefined ? "" : `. Did you mean ${suggestion}?`}`,
  unsupportedItemType: (type: string, callId: string | undefined): string =>
    `unsupported item type ${type}${callId === undefined ? "" : ` (call ${callId})`}: no tool answers it`,
  incompatiblePayload: (name: string): string => `tool ${name} invoked with incompatible payload`,
  argumentsNotString: "failed to parse function arguments: arguments must be a JSON string",
  argumentsNotJson: (parserMessage: string): string => `failed to parse function arguments: ${parserMessage}`,
  invalidArguments: (name: string, problems: readonly string[]): string =>
    `invalid arguments for ${name}: ${problems.join("; ")}`,
  /** Repair, loops and quotas (DESIGN section 18). */
  argumentsRepaired: (what: readonly string[]): string => `note: arguments were repaired: ${what.join("; ")}`,
  didYouMeanProperty: (problem: string, property: string): string => `${problem} (did you mean ${property}?)`,
  unknownProperty: (path: string, property: string): string =>
    `${path} is not a known property (did you mean ${property}?)`,
  loopDetected: (count: number): string =>
    `this exact call ran ${count} times with the same result; change the approach or the arguments`,
  quotaExceeded: (tool: string, limit: number, per: "turn" | "session"): string =>
    `quota exceeded: ${tool} may run ${limit} times per ${per}`,
  toolFailed: (name: string, message: string | undefined): string =>
    `tool ${name} failed: ${message ?? "unknown error"}`,
  malformedOutput: (name: string, problem: string): string =>
    `tool ${name} failed: its handler returned a malformed output (${problem})`,
  abortedByUser: "aborted by user",
  /** Elapsed since submit, at least 0.1 s. */
  abortedAfter: (elapsedMs: number): string => `aborted by user after ${formatSeconds(Math.max(elapsedMs, 100))}s`,
  abortedTurnEnded: (elapsedMs: number, fatalMessage: string): string =>
    `aborted after ${formatSeconds(elapsedMs)}s because the turn ended: ${fatalMessage}`,
  /** Exec tools (Codex `abort_message`): the wall time, then what the command printed. */
  execAborted: (elapsedMs: number, seen: string | undefined): string =>
    `Wall time: ${formatSeconds(elapsedMs)} seconds\naborted by user${seen ? `\nOutput:\n${seen}` : ""}`,
  duplicateCallId: (callId: string): string => `duplicate call id: ${callId}`,
  /** A resumed turn's answer for a mutating call that was running when the agent stopped (DESIGN section 17). */
  interrupted: (toolName: string): string =>
    `interrupted: ${toolName} was running when the agent stopped; it may or may not have taken effect. Check before running it again.`,
  /** The policy stage (DESIGN section 11). */
  deniedByRule: (rule: string): string => `denied by policy: rule "${rule}" forbids this call`,
  /** A file the call found somewhere other than where its path was judged (a link changed since). */
  landingChanged: (path: string, real: string): string =>
    `denied by policy: ${path} now leads to ${real}, which was not judged when the call was allowed (a link changed meanwhile)`,
  deniedReadOnly: (tool: string): string =>
    `denied by policy: ${tool} may change files or state, which read-only mode forbids`,
  rejectedByUser: (message?: string): string => (message ? `rejected by user: ${message}` : "rejected by user"),
  noApprovalInTime: (ms: number): string => `rejected: no approval within ${formatSeconds(ms)}s`,
  noApprover: "rejected: this call needs approval and no approver is configured",
  preToolUseBlocked: (reason: string, command: string | undefined, tool: string): string =>
    command !== undefined
      ? `Command blocked by PreToolUse hook: ${reason}. Command: ${command}`
      : `Tool call blocked by PreToolUse hook: ${reason}. Tool: ${tool}`,
  postToolUseBlocked: (reason: string | undefined): string => reason || "PostToolUse hook blocked the tool result",
  permissionRequestDenied: (message: string | undefined): string =>
    message ? `denied by PermissionRequest hook: ${message}` : "denied by PermissionRequest hook",
  deadline: (tool: string, ms: number): string => `tool ${tool} timed out after ${formatSeconds(ms)}s`,
  /** Tool groups and tool search (DESIGN section 15). */
  toolInactive: (name: string): string => `tool ${name} is not active; activate its group with reset_tools`,
  toolDeferred: (name: string): string => `tool ${name} is not active; find it with tool_search first`,
  /** The sandbox (DESIGN section 12). */
  sandboxUnavailable: "sandbox unavailable: bubblewrap (bwrap) is not installed; install it or use danger-full-access",
  outsideWritableRoots: (path: string): string => `denied by sandbox: ${path} is outside the writable roots`,
  /** A path through a protected directory (`.git`, `.claude`, `.codex`) or a protected file (`.bashrc`, ...). */
  protectedPath: (path: string, name: string, dir: boolean): string =>
    dir
      ? `denied by sandbox: ${path} is inside ${name}, which stays read-only`
      : `denied by sandbox: ${path} is a ${name} file, which stays read-only`,
  secretPath: (path: string): string => `denied by sandbox: ${path} holds credentials, which the sandbox does not read`,
  outsideReadableRoots: (path: string): string => `denied by sandbox: ${path} is outside the readable roots`,
  notRegularFile: (path: string): string => `${path} is not a regular file`,
  escalateCommand: "command failed in the sandbox; run it again without the sandbox?",
  /** `exec_command`'s `sandbox_permissions: "require_escalated"`, with the model's `justification`. */
  escalateRequested: (justification: string | undefined): string =>
    justification
      ? `the model asks to run this command without the sandbox: ${justification}`
      : "the model asks to run this command without the sandbox",
  escalationNotApproved:
    "exec_command was not run: running it without the sandbox (sandbox_permissions: require_escalated) was not approved; run it with use_default to stay inside the sandbox",
  escalateWrite: (path: string): string => `${path} is outside the writable roots; write it anyway?`,
  networkDenied: (host: string): string => `network access to ${host} is not allowed by the sandbox`,
  escalateNetwork: (hosts: readonly string[]): string =>
    `network access to ${hosts.join(", ")} is not allowed by the sandbox; allow ${hosts.length === 1 ? "it" : "them"} for this session and run the command again?`,
  /** MCP (DESIGN section 6): a failed call, a timed-out request, a filtered-out tool. */
  mcpCallFailed: (message: string): string => `tool call error: ${message}`,
  mcpTimedOut: (what: string, timeoutMs: number): string =>
    `timed out awaiting ${what} after ${formatSecondsExact(timeoutMs)}s`,
  mcpToolDisabled: (tool: string, server: string): string => `tool '${tool}' is disabled for MCP server '${server}'`,
} as const;
