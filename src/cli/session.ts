import os from "node:os";
import path from "node:path";
import { stat } from "node:fs/promises";
import { pino, type Logger } from "pino";
import type { McpConnectionManager } from "../mcp/index.js";
import type { ToolRouter } from "../router/index.js";
import { createToolRouter } from "../toolset.js";
import { createTurnContext, type TurnContext, type ToolEvent, type TurnJournal } from "../turn/index.js";
import { ConfigError, configFromDocument, loadCliConfig, type CliConfig } from "./config.js";
import { PermissionEngine, policyToolWarnings, type PermissionMode, type PermissionPolicy } from "../policy/index.js";
import type { ExecEnvironment } from "../protocol/index.js";
import type { DynamicToolSpec } from "../registry/index.js";
import { errorMessage } from "../util/index.js";
import { loadPlugins } from "./plugins.js";
import { sessionEnvironment, turnCwd, type SandboxFlags } from "./sandbox.js";

export const EXIT_OK = 0;
export const EXIT_FATAL = 1;
export const EXIT_USAGE = 2;
/** The shell's convention: 128 + the signal's number (SIGINT 130, SIGTERM 143). */
export function exitCodeFor(signal: NodeJS.Signals): number {
  return 128 + (os.constants.signals[signal] ?? 2);
}

/** SIGINT or SIGTERM stopped the command before it finished; `toolcall` exits with 130 or 143. */
export class InterruptedError extends Error {
  constructor(readonly signal: NodeJS.Signals) {
    super(`${signal}: interrupted`);
    this.name = "InterruptedError";
  }
}

/**
 * Until the returned function is called, SIGINT and SIGTERM call `onSignal` instead of
 * killing this process, so the command can still write its outputs and close MCP servers
 * politely. A second signal exits at once. Being a listener of its own is what makes
 * `src/process` leave the signal to this handler (it only passes it on to running commands)
 * rather than SIGKILL every child and re-raise it; on `process.exit` it SIGKILLs what is left.
 */
export function onInterrupt(onSignal: (signal: NodeJS.Signals) => void): () => void {
  let seen = false;
  const handler = (signal: NodeJS.Signals): void => {
    if (seen) process.exit(exitCodeFor(signal));
    seen = true;
    onSignal(signal);
  };
  process.on("SIGINT", handler);
  process.on("SIGTERM", handler);
  return () => {
    process.off("SIGINT", handler);
    process.off("SIGTERM", handler);
  };
}

/**
 * `work`, or an `InterruptedError` as soon as SIGINT or SIGTERM arrives. When either fails,
 * `cleanup` runs while the signals are still handled (a second Ctrl-C exits, with exit hooks).
 */
export async function interruptible<T>(work: Promise<T>, cleanup?: () => Promise<void>): Promise<T> {
  let stop = (): void => {};
  const interrupted = new Promise<never>((_, reject) => {
    stop = onInterrupt((signal) => {
      reject(new InterruptedError(signal));
    });
  });
  try {
    return await Promise.race([work, interrupted]);
  } catch (err) {
    await cleanup?.();
    throw err;
  } finally {
    stop();
  }
}

/** Longer than the shell's kill grace plus its wait for the group to go. */
const COMMANDS_SETTLE_MS = 3_000;

/**
 * Shell commands still running. An aborted call answers at once while its handler is still
 * killing the process group (SIGKILL after a grace): exiting, or removing the directory it
 * writes to, before that would orphan it or race its last writes.
 */
export class RunningCommands {
  private readonly ids = new Set<string>();
  private idle: (() => void) | undefined;

  observe(event: ToolEvent): void {
    if (event.type === "exec_command_begin") this.ids.add(event.callId);
    else if (event.type === "exec_command_end" && this.ids.delete(event.callId) && this.ids.size === 0) this.idle?.();
  }

  /** Resolves when none runs, or after `ms` (a handler that never reports its end). */
  settled(ms = COMMANDS_SETTLE_MS): Promise<void> {
    if (this.ids.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.idle = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

/** Options every command shares (the sandbox flags only where tools run; without them, the defaults). */
export interface CommonOptions extends SandboxFlags {
  configPath?: string | undefined;
  cwd?: string | undefined;
  logLevel?: string | undefined;
  /** `--permissions MODE`: overrides the config's `[permissions] mode`. */
  permissions?: string | undefined;
  /** `--settings FILE`s: Claude Code settings over the config, lowest scope first. */
  settings?: readonly string[] | undefined;
  /** `--claude-settings`: the user's, the project's and the local Claude Code settings. */
  claudeSettings?: boolean | undefined;
}

const MODES: readonly string[] = ["default", "accept_edits", "read_only", "bypass"];

/**
 * The session's permission engine: the config's `[permissions]` with `--permissions` over its
 * mode. Approvals go to `approve` when the command has someone to ask (serve-mcp: the client,
 * by elicitation); otherwise "ask" follows the no-approver rule. None when neither is given
 * (everything allowed, as a library default).
 */
function permissionEngine(
  config: CliConfig,
  mode: string | undefined,
  approve: PermissionPolicy["approve"] | "events",
): PermissionEngine | undefined {
  if (mode !== undefined && !MODES.includes(mode)) {
    throw new ConfigError(`--permissions: expected one of ${MODES.join(", ")}, got ${JSON.stringify(mode)}`);
  }
  if (config.permissions === undefined && mode === undefined) return undefined;
  // "events": the turn's `approval_request` events are answered (the sidecar asks its client).
  const policy: PermissionPolicy =
    approve === "events"
      ? { ...config.permissions }
      : approve
        ? { ...config.permissions, approve }
        : { ...config.permissions, nonInteractive: true };
  if (mode !== undefined) policy.mode = mode as PermissionMode;
  try {
    return new PermissionEngine(policy);
  } catch (err) {
    throw new ConfigError(`[permissions]: ${errorMessage(err)}`);
  }
}

/** A warning for the person running the command: stderr, one line. */
function warn(text: string): void {
  process.stderr.write(`toolcall: warning: ${text}\n`);
}

/** The config, router and turn one command works with; `close()` stops MCP servers. */
export interface CliSession {
  config: CliConfig;
  cwd: string;
  logger: Logger;
  router: ToolRouter;
  turn: TurnContext;
  /** Where the turn's commands run: a container (`--docker-image`, `[docker]`), or the config's sandbox with the flags over it. */
  environment: ExecEnvironment;
  /** The configured MCP servers, when there are any. */
  mcp: McpConnectionManager | undefined;
  /** Waits for running shell commands to end (abort first), closes the environment, then stops the MCP servers. */
  close(): Promise<void>;
}

const LEVELS: readonly string[] = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

/** Logs go to stderr (stdout carries results), written synchronously so none is lost at exit. */
export function stderrLogger(level: string | undefined): Logger {
  const chosen = level ?? process.env["TOOLCALL_LOG"] ?? "error";
  if (!LEVELS.includes(chosen)) {
    throw new ConfigError(`--log-level: expected one of ${LEVELS.join(", ")}, got ${JSON.stringify(chosen)}`);
  }
  return pino({ name: "toolcall", level: chosen }, pino.destination({ dest: 2, sync: true }));
}

export async function resolveCwd(dir: string | undefined): Promise<string> {
  const cwd = path.resolve(dir ?? process.cwd());
  const info = await stat(cwd).catch(() => undefined);
  if (!info?.isDirectory()) throw new ConfigError(`--cwd: not a directory: ${cwd}`);
  return cwd;
}

/**
 * Loads the config (from `--config`, or `toolcall.toml` in the working directory), starts
 * the configured MCP servers and builds the router and the turn. SIGINT or SIGTERM during
 * the MCP start-up stops the servers and throws `InterruptedError`.
 */
export async function openSession(
  opts: CommonOptions & {
    onEvent?: (event: ToolEvent) => void;
    logger?: Logger;
    /**
     * Who answers approvals, when the command has someone to ask: a function, or "events"
     * (`approval_request` events, answered through the runtime).
     */
    approve?: PermissionPolicy["approve"] | "events";
    /** The config itself (the JSON form) instead of a file. */
    configDoc?: Record<string, unknown>;
    /** Tools the command's client answers. */
    dynamicTools?: DynamicToolSpec[];
    /** The turn's journal (DESIGN section 17). */
    journal?: TurnJournal;
    /** `--plugin FILE`s: modules exporting a tool factory. */
    plugins?: readonly string[] | undefined;
  },
): Promise<CliSession> {
  const logger = opts.logger ?? stderrLogger(opts.logLevel);
  const cwd = await resolveCwd(opts.cwd);
  // Before anything starts: a plugin that cannot load is a usage error with nothing to stop.
  const plugins = opts.plugins?.length ? await loadPlugins(opts.plugins) : undefined;
  const config = opts.configDoc
    ? await configFromDocument(opts.configDoc, cwd)
    : await loadCliConfig({
        configPath: opts.configPath,
        dir: cwd,
        logger,
        settings: opts.settings,
        claudeSettings: opts.claudeSettings,
      });
  for (const warning of config.warnings ?? []) warn(warning);
  // Before any MCP server starts: a bad policy must not leave one running.
  const permissions = permissionEngine(config, opts.permissions, opts.approve);
  // One environment for the session: every turn's commands share its roots and variables.
  const environment = await sessionEnvironment(cwd, config, opts);
  const commands = new RunningCommands();
  const onEvent = (event: ToolEvent): void => {
    commands.observe(event);
    opts.onEvent?.(event);
  };
  let mcp: McpConnectionManager | undefined;
  if (Object.keys(config.mcpServers).length > 0) {
    // The MCP client SDK only when servers are configured (about 130 ms of imports).
    const { McpConnectionManager } = await import("../mcp/index.js");
    // Servers see the working directory and the writable roots as their roots (DESIGN section 14).
    const roots = [...new Set([cwd, ...environment.sandbox.writableRoots])];
    mcp = McpConnectionManager.start(config.mcpServers, { logger, onEvent, roots });
    // Calls name MCP tools by qualified name, which resolve only once their server has listed them.
    const started = mcp;
    const { failed } = await interruptible(started.waitForStartup(), async () => {
      await started.close();
      await environment.close?.();
    });
    for (const f of failed) process.stderr.write(`toolcall: MCP server '${f.server}' failed to start: ${f.error}\n`);
  }
  const router = await createToolRouter(config.tools, {
    logger,
    ...(mcp ? { mcp } : {}),
    ...(opts.dynamicTools && { dynamicTools: opts.dynamicTools }),
    ...plugins,
  }).catch(async (err: unknown) => {
    await mcp?.close();
    await environment.close?.();
    // The built-ins check their own config slice: what they refuse is a config problem (exit 2).
    throw err instanceof TypeError ? new ConfigError(`${config.file ?? "config"}: ${err.message}`) : err;
  });
  // A rule or hook matcher naming no tool offered here looks enforced and is not: say so.
  for (const warning of policyToolWarnings(config.permissions, config.hooks, router.toolNames())) warn(warning);
  const turn = createTurnContext({
    cwd: turnCwd(environment, cwd),
    logger,
    environment,
    ...(config.runtime.truncation ? { truncationPolicy: config.runtime.truncation } : {}),
    ...(permissions ? { permissions } : {}),
    ...(config.hooks ? { hooks: config.hooks } : {}),
    ...(opts.journal ? { journal: opts.journal } : {}),
    onEvent,
  });
  const close = async (): Promise<void> => {
    await commands.settled();
    await router.close();
    await environment.close?.();
    await mcp?.close();
  };
  return { config, cwd, logger, router, turn, environment, mcp, close };
}
